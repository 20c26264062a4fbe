package handlers

import "testing"

func TestParseOrigin(t *testing.T) {
	tests := []struct {
		in, want string // want "" means an error
	}{
		{"https://app.example", "https://app.example"},
		{"HTTPS://App.Example", "https://app.example"},
		{"https://app.example:443", "https://app.example"},
		{"http://app.example:80", "http://app.example"},
		{"https://app.example:80", "https://app.example:80"},
		{"http://app.example:443", "http://app.example:443"},
		{"http://localhost:08080", "http://localhost:8080"},
		{"http://[::1]:8080", "http://[::1]:8080"},
		{"https://[2001:DB8::1]:443", "https://[2001:db8::1]"},
		{"capacitor://localhost", "capacitor://localhost"},
		{"null", ""},
		{"", ""},
		{"app.example", ""},
		{"//app.example", ""},
		{"https://app.example/", ""},
		{"https://app.example/path", ""},
		{"https://app.example?q", ""},
		{"https://app.example?", ""},
		{"https://app.example#f", ""},
		{"https://user@app.example", ""},
		{"https://app.example:", ""},
		{"https://app.example:0", ""},
		{"https://app.example:65536", ""},
		{"https://app.example:x", ""},
		{"mailto:a@app.example", ""},
		{"https://", ""},
	}
	for _, tc := range tests {
		got, err := ParseOrigin(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("ParseOrigin(%q) = %q, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
