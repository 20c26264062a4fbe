package datetime

import (
	"strings"
	"testing"
	"time"
)

func TestParseZone(t *testing.T) {
	tests := []struct {
		in         string
		wantName   string
		wantOffset int // seconds east of UTC on 2018-01-01
		wantErr    bool
	}{
		{in: "UTC", wantName: "UTC"},
		{in: "utc", wantName: "UTC"},
		{in: "  UTC\t", wantName: "UTC"},
		{in: "Europe/Paris", wantName: "Europe/Paris", wantOffset: 3600},
		{in: " America/New_York ", wantName: "America/New_York", wantOffset: -5 * 3600},
		{in: "America/Port-au-Prince", wantName: "America/Port-au-Prince", wantOffset: -5 * 3600},
		{in: "Etc/GMT+5", wantName: "Etc/GMT+5", wantOffset: -5 * 3600},
		{in: "Etc/UTC", wantName: "Etc/UTC"},
		{in: "Asia/Kolkata", wantName: "Asia/Kolkata", wantOffset: 5*3600 + 1800},
		{in: "UTC+5", wantName: "UTC+5", wantOffset: 5 * 3600},
		{in: "utc+5", wantName: "UTC+5", wantOffset: 5 * 3600},
		{in: "UTC+05", wantName: "UTC+05", wantOffset: 5 * 3600},
		{in: "UTC-3:30", wantName: "UTC-3:30", wantOffset: -(3*3600 + 1800)},
		{in: "UTC-03:30", wantName: "UTC-03:30", wantOffset: -(3*3600 + 1800)},
		{in: "UTC+5.5", wantName: "UTC+5.5", wantOffset: 5*3600 + 1800},
		{in: "UTC+5.50", wantName: "UTC+5.50", wantOffset: 5*3600 + 1800},
		{in: "UTC+5.75", wantName: "UTC+5.75", wantOffset: 5*3600 + 2700},
		{in: "UTC-9.25", wantName: "UTC-9.25", wantOffset: -(9*3600 + 900)},
		{in: "UTC+8.0", wantName: "UTC+8.0", wantOffset: 8 * 3600},
		{in: "UTC+0", wantName: "UTC+0"},
		{in: "UTC-0", wantName: "UTC-0"},
		{in: "UTC+14", wantName: "UTC+14", wantOffset: 14 * 3600},
		{in: "UTC-12", wantName: "UTC-12", wantOffset: -12 * 3600},
		{in: "UTC+14:59", wantName: "UTC+14:59", wantOffset: 14*3600 + 59*60},

		{in: "", wantErr: true},
		{in: "   ", wantErr: true},
		{in: "Local", wantErr: true},
		{in: "Europe/Nowhere", wantErr: true},
		{in: "europe/paris", wantErr: true},
		{in: "../../etc/passwd", wantErr: true},
		{in: "Europe/../Europe/Paris", wantErr: true},
		{in: "/usr/share/zoneinfo/Europe/Paris", wantErr: true},
		{in: "zone.tab", wantErr: true},
		{in: "Europe", wantErr: true},
		{in: "Europe/Paris ", wantErr: false, wantName: "Europe/Paris", wantOffset: 3600},
		{in: "Europe /Paris", wantErr: true},
		{in: "UTC+", wantErr: true},
		{in: "UTC5", wantErr: true},
		{in: "UTC +5", wantErr: true},
		{in: "UTC+15", wantErr: true},
		{in: "UTC+005", wantErr: true},
		{in: "UTC+5:60", wantErr: true},
		{in: "UTC+5:3", wantErr: true},
		{in: "UTC+5:300", wantErr: true},
		{in: "UTC+5.3", wantErr: true},
		{in: "UTC+5.", wantErr: true},
		{in: "UTC+.5", wantErr: true},
		{in: "UTC+5:30:00", wantErr: true},
		{in: "UTC++5", wantErr: true},
		{in: "UTC±5", wantErr: true},
		{in: "GMT+5", wantErr: true},
		{in: "+05:00", wantErr: true},
	}
	at := time.Date(2018, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseZone(tc.in)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("ParseZone(%q) = %+v, want an error", tc.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseZone(%q): %v", tc.in, err)
			}
			if got.Name != tc.wantName {
				t.Errorf("Name = %q, want %q", got.Name, tc.wantName)
			}
			if _, off := at.In(got.Loc).Zone(); off != tc.wantOffset {
				t.Errorf("offset = %d, want %d", off, tc.wantOffset)
			}
		})
	}
}

func TestZoneAbbr(t *testing.T) {
	winter := time.Date(2018, 1, 15, 12, 0, 0, 0, time.UTC)
	summer := time.Date(2018, 7, 15, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		zone string
		at   time.Time
		want string
	}{
		{"UTC", winter, "UTC"},
		{"utc", summer, "UTC"},
		{"America/New_York", winter, "EST"},
		{"America/New_York", summer, "EDT"},
		{"Europe/Paris", winter, "CET"},
		{"Europe/Paris", summer, "CEST"},
		{"Europe/Istanbul", summer, "+03"},
		{"America/Sao_Paulo", winter, "-02"},
		{"Australia/Lord_Howe", winter, "+11"},
		{"Etc/UTC", winter, "UTC"},
		{"UTC+5", summer, "UTC+5"},
		{"UTC-3:30", winter, "UTC-3:30"},
		{"utc+5.75", winter, "UTC+5.75"},
	}
	for _, tc := range tests {
		t.Run(tc.zone+" "+tc.at.Format(DB), func(t *testing.T) {
			z, err := ParseZone(tc.zone)
			if err != nil {
				t.Fatal(err)
			}
			if got := z.Abbr(tc.at); got != tc.want {
				t.Errorf("Abbr = %q, want %q", got, tc.want)
			}
		})
	}
	if got := (Zone{}).Abbr(winter); got != "" {
		t.Errorf("zero Zone Abbr = %q, want empty", got)
	}
}

func FuzzParseZone(f *testing.F) {
	for _, s := range []string{
		"UTC", "utc", "Europe/Paris", "America/New_York", "Australia/Lord_Howe", "Etc/GMT-14",
		"UTC+5", "UTC-3:30", "UTC+5.5", "UTC+5.75", "UTC-12", "UTC+14:00", "Local", "",
		"../etc/passwd", "/etc/localtime", "UTC+15", "utc-0.25", " Asia/Tokyo ",
	} {
		f.Add(s)
	}
	at := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		z, err := ParseZone(s)
		if err != nil {
			return
		}
		if z.Loc == nil {
			t.Fatalf("ParseZone(%q) has a nil Loc", s)
		}
		if trimmed := strings.Trim(s, asciiSpace); !strings.EqualFold(z.Name, trimmed) {
			t.Fatalf("ParseZone(%q).Name = %q, want the trimmed input", s, z.Name)
		}
		if z.Abbr(at) == "" {
			t.Fatalf("ParseZone(%q).Abbr is empty", s)
		}
		_, off := at.In(z.Loc).Zone()
		if off < -16*3600 || off > 16*3600 {
			t.Fatalf("ParseZone(%q) offset %d out of bounds", s, off)
		}
		again, err := ParseZone(z.Name)
		if err != nil {
			t.Fatalf("ParseZone(%q) ok but ParseZone(Name %q): %v", s, z.Name, err)
		}
		if _, off2 := at.In(again.Loc).Zone(); again.Name != z.Name || off2 != off {
			t.Fatalf("ParseZone(%q) does not round-trip: %+v vs %+v", s, z, again)
		}
	})
}

func TestZoneFixed(t *testing.T) {
	for zone, want := range map[string]bool{"UTC": false, "utc": false, "Etc/UTC": false, "Europe/Paris": false,
		"Etc/GMT+5": false, "UTC+5": true, "UTC-3:30": true, "UTC+0": true, "utc+5.75": true} {
		z, err := ParseZone(zone)
		if err != nil {
			t.Fatal(err)
		}
		if got := z.Fixed(); got != want {
			t.Errorf("ParseZone(%q).Fixed() = %v, want %v", zone, got, want)
		}
	}
}
