// Verifies one webhook delivery with the npm Standard Webhooks library, independently of the Go one
// calendard signs with. Reads {"secret", "headers", "body"} as JSON on stdin; exits 0 when the
// signature verifies, 1 (with the library's message on stderr) when it does not.
import { Webhook } from "standardwebhooks";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { secret, headers, body } = JSON.parse(input);
try {
  new Webhook(secret).verify(body, headers);
  console.log("verified");
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
