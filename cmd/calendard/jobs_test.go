package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

func TestRunJob(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string {
		return map[string]string{"CALENDAR_NOW": testNow, "CALENDAR_ADMIN_APP_PASSWORD": adminPass}[k]
	}
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"publish-due", []string{"run-job", "publish-due", "--data-dir", dir}, ""},
		{"trim-changes", []string{"run-job", "trim-changes", "--data-dir", dir}, ""},
		{"consistency-check", []string{"run-job", "consistency-check", "--data-dir", dir}, ""},
		{"unknown", []string{"run-job", "nope", "--data-dir", dir}, "publish-due, trim-changes, consistency-check"},
		{"no name", []string{"run-job", "--data-dir", dir}, "needs a job name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(context.Background(), tc.args, getenv, &out, io.Discard)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(out.String(), "ran "+tc.name) {
					t.Errorf("output %q", out.String())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
