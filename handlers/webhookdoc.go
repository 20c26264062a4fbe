package handlers

import "github.com/calendard/calendard/jobs/webhook"

// webhookDoc describes the webhooks' deliveries (docs/API.md "Webhooks") in /doc, under x-webhooks:
// the convention OpenAPI 3.0 documents have for what 3.1 calls webhooks, each a path item whose
// operation is the request this service sends to a subscription's URL.
var webhookDoc = func() obj {
	str, integer := typed("string"), typed("integer")
	change := props(
		member{"type", obj{{"type", "string"}, {"enum", []string{"event", "venue", "organizer", "category", "tag"}}}},
		member{"id", integer},
		member{"action", obj{{"type", "string"}, {"enum", []string{"upsert", "delete"}}}},
		member{"modified_utc", str},
	)
	message := props(
		member{"type", obj{{"type", "string"}, {"enum", []string{webhook.TypeChanged, webhook.TypeResyncRequired, webhook.TypeTest}}}},
		member{"timestamp", obj{{"type", "string"}, {"format", "date-time"}}},
		member{"data", props(
			member{"since", str}, member{"next", str}, member{"more", typed("boolean")},
			member{"changes", obj{{"type", "array"}, {"items", change}, {"maxItems", 100}}},
		)},
	)
	header := func(name, desc string) obj {
		return obj{{"name", name}, {"in", "header"}, {"required", true}, {"description", desc}, {"schema", str}}
	}
	post := obj{
		{"summary", "What changed since the subscription's cursor, signed (Standard Webhooks 1.0)"},
		{"description", "Sent to the subscription's URL (calendard webhook create) with the changes GET /changes?since=data.since answers the subscription's user, at most 100, without record; data.next resumes the feed. calendar.resync_required: the subscription fell behind the feed's horizon and goes on from data.next. A 2xx answer advances the cursor; any other answer, or none within the timeout, is retried on Standard Webhooks' schedule with the same webhook-id; 410 disables the subscription."},
		{"parameters", []obj{
			header("webhook-id", "msg_ and a hash of the subscription and data.since: the same on every retry, to deduplicate on"),
			header("webhook-timestamp", "Unix seconds of the attempt"),
			header("webhook-signature", "v1, and the base64 HMAC-SHA256 of {webhook-id}.{webhook-timestamp}.{body} with the secret; after rotate-secret, the old and the new signature, space-separated, for 24 hours"),
		}},
		{"requestBody", obj{{"required", true}, {"content", obj{{"application/json", obj{{"schema", message}}}}}}},
		{"responses", obj{
			{"2XX", obj{{"description", "Delivered: the cursor advances."}}},
			{"410", obj{{"description", "Gone: the subscription is disabled."}}},
			{"default", obj{{"description", "Failed: retried later (429 and 503 after their Retry-After)."}}},
		}},
	}
	return obj{{webhook.TypeChanged, obj{{"post", post}}}}
}()
