//go:build phpdiff

package input

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"
)

func convGo(v any) any {
	switch v := v.(type) {
	case string:
		return map[string]any{"s": base64.StdEncoding.EncodeToString([]byte(v))}
	case []any:
		out := []any{}
		for _, x := range v {
			out = append(out, convGo(x))
		}
		return map[string]any{"l": out}
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[base64.StdEncoding.EncodeToString([]byte(k))] = convGo(x)
		}
		return map[string]any{"m": out}
	}
	panic(fmt.Sprintf("%T", v))
}

// php's m is a list of pairs; turn into map
func normPHP(v any) any {
	m := v.(map[string]any)
	if s, ok := m["s"]; ok {
		return map[string]any{"s": s}
	}
	if l, ok := m["l"]; ok {
		out := []any{}
		for _, x := range l.([]any) {
			out = append(out, normPHP(x))
		}
		return map[string]any{"l": out}
	}
	out := map[string]any{}
	for _, p := range m["m"].([]any) {
		pp := p.([]any)
		out[pp[0].(string)] = normPHP(pp[1])
	}
	return map[string]any{"m": out}
}

func phpForms(t *testing.T, ins []string) []any {
	var stdin bytes.Buffer
	for _, in := range ins {
		stdin.WriteString(base64.StdEncoding.EncodeToString([]byte(in)) + "\n")
	}
	cmd := exec.Command("php", "-d", "max_input_nesting_level=32", "-d", "max_input_vars=100000", "/tmp/phpdiff/form.php")
	cmd.Stdin = &stdin
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(ins) {
		t.Fatalf("got %d lines for %d inputs", len(lines), len(ins))
	}
	res := make([]any, len(lines))
	for i, l := range lines {
		var v any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		res[i] = normPHP(v)
	}
	return res
}

func TestPHPFormDiff(t *testing.T) {
	var ins []string
	if f := os.Getenv("PHPDIFF_FILE"); f != "" {
		b, _ := os.ReadFile(f)
		for _, l := range strings.Split(string(b), "\n") {
			if l != "" {
				d, _ := base64.StdEncoding.DecodeString(l)
				ins = append(ins, string(d))
			}
		}
	}
	alpha := []string{"a", "b", "0", "1", "-1", "01", "[", "]", "[]", "&", "=", ".", " ", "+", "%5B", "%5d", "%2", "%00", "x", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "[[", "]]", "_", "%20", "%2E", "%09", "%0B", "%0a", "[x]", "[0]", "[5]", "[-3]", "[ ]", "[ 1]", "\t", "c", "%"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var b strings.Builder
		n := 1 + r.IntN(14)
		for range n {
			b.WriteString(alpha[r.IntN(len(alpha))])
		}
		ins = append(ins, b.String())
	}
	// deep
	ins = append(ins, "a"+strings.Repeat("[x]", 32)+"=1", "a"+strings.Repeat("[x]", 33)+"=1", "a[y]=2&a"+strings.Repeat("[]", 33)+"=1&b=3", "a"+strings.Repeat("[]", 32)+"[x=1")
	want := phpForms(t, ins)
	fails := 0
	for i, in := range ins {
		got := convGo(Form(in))
		if !reflect.DeepEqual(got, want[i]) {
			fails++
			if fails < 30 {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(want[i])
				t.Errorf("Form(%q):\n got %s\nwant %s", in, gj, wj)
			}
		}
	}
	t.Logf("%d inputs, %d mismatches", len(ins), fails)
}

func TestPHPJSONDiff(t *testing.T) {
	var ins []string
	toks := []string{"{", "}", "[", "]", ",", ":", "\"", "\"a\"", "\"b\":", "1", "-", "0", "01", "1.", ".5", "1e5", "1E+", "true", "tru", "null", "false", " ", "\t", "\n", "\x01", "\x00", "\xff", "\xc3\xa9", "\\", "\\u", "\\ud800", "\\udc00", "\\u0041", "\\n", "\\x", "x", "\xed\xa0\x80", "\xef\xbb\xbf", "\"\\ud83d\\ude00\"", strings.Repeat("[", 16), strings.Repeat("{\"a\":", 16), strings.Repeat("]", 16), strings.Repeat("}", 16), "[[[[]]]]"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		var b strings.Builder
		if r.IntN(2) == 0 {
			b.WriteString("{\"k\":")
		}
		n := 1 + r.IntN(10)
		for range n {
			b.WriteString(toks[r.IntN(len(toks))])
		}
		if r.IntN(2) == 0 {
			b.WriteString("}")
		}
		ins = append(ins, b.String())
	}
	var stdin bytes.Buffer
	for _, in := range ins {
		stdin.WriteString(base64.StdEncoding.EncodeToString([]byte(in)) + "\n")
	}
	cmd := exec.Command("php", "/tmp/phpdiff/json.php")
	cmd.Stdin = &stdin
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	fails, accepted := 0, 0
	for i, in := range ins {
		var code int
		var kind string
		fmt.Sscanf(lines[i], "%d %s", &code, &kind)
		_, err := JSON([]byte(in))
		gotCode := 0
		if err != nil {
			gotCode = err.(*JSONError).Code
		} else {
			accepted++
		}
		wantCode := code
		if code == 0 && kind != "obj" {
			wantCode = JSONErrorSyntax
		}
		if strings.Trim(in, " \t\n\r") == "" {
			wantCode = 0
		}
		if gotCode != wantCode {
			fails++
			if fails < 30 {
				t.Errorf("JSON(%q) code %d, PHP %s", in, gotCode, lines[i])
			}
		}
	}
	t.Logf("%d inputs, %d accepted, %d mismatches", len(ins), accepted, fails)
}

func TestPHPMultipartDiff(t *testing.T) {
	cmd := exec.Command("php", "-d", "max_input_nesting_level=32", "-S", "127.0.0.1:18087", "/tmp/phpdiff/post.php")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	time.Sleep(500 * time.Millisecond)
	part := func(disp, body string) string {
		return "--XB\r\nContent-Disposition: " + disp + "\r\n\r\n" + body + "\r\n"
	}
	cases := []string{
		part(`form-data; name="a"`, "1") + part(`form-data; name="a"`, "2") + "--XB--\r\n",
		part(`form-data; name=a[]`, "1") + part(`form-data; name=a[]`, "2") + "--XB--\r\n",
		part(`form-data; name="f"; filename=""`, "x") + part(`form-data; name="g"; filename="x.txt"`, "x") + part(`form-data; name="h"`, "y") + "--XB--\r\n",
		part(`form-data; name="a.b c[x.y]"`, "1") + "--XB--\r\n",
		part(`form-data; name="a\"b"`, "1") + part(`form-data; name='q'`, "2") + part(`form-data;name="r"`, "3") + "--XB--\r\n",
		part(`form-data; NAME="up"`, "1") + part(`attachment; name="att"`, "2") + part(`form-data; name = "sp"`, "3") + "--XB--\r\n",
		part(`form-data; name="m"`, "line1\r\nline2") + part(`form-data; name="e"`, "") + "--XB--\r\n",
		part(`form-data; name="x y"; foo="a;b"`, "1") + part(`form-data; name="k"; name="k2"`, "2") + "--XB--\r\n",
		"preamble\r\n" + part(`form-data; name="p"`, "1") + "--XB--\r\nepilogue",
		part(`form-data; name="a[b]"`, "1") + part(`form-data; name="a[]"`, "2") + "--XB--\r\n",
	}
	for _, body := range cases {
		resp, err := http.Post("http://127.0.0.1:18087/", "multipart/form-data; boundary=XB", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		want := normPHP(v)
		m, err := Multipart(strings.NewReader(body), "XB", 1<<20)
		if err != nil {
			t.Errorf("Multipart(%q): %v", body, err)
			continue
		}
		got := convGo(m)
		if !reflect.DeepEqual(got, want) {
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			t.Errorf("Multipart(%q):\n got %s\nwant %s", body, gj, wj)
		}
	}
}
