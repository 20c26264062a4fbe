package ical

import (
	"errors"
	"testing"
	"time"

	"github.com/calendard/calendard/storage/datetime"
)

func TestParseTimeValue(t *testing.T) {
	tests := []struct {
		in, valueParam string
		want           datetime.Wall
		wantForm       timeForm
		wantErr        bool
	}{
		{in: "20260310", valueParam: "DATE", want: datetime.Wall{Year: 2026, Month: 3, Day: 10}, wantForm: formDate},
		{in: "20260310", want: datetime.Wall{Year: 2026, Month: 3, Day: 10}, wantForm: formDate},
		{in: "20260310T190000", want: datetime.Wall{Year: 2026, Month: 3, Day: 10, Hour: 19}, wantForm: formLocal},
		{in: "20260310T190005Z", valueParam: "DATE-TIME", want: datetime.Wall{Year: 2026, Month: 3, Day: 10, Hour: 19, Sec: 5}, wantForm: formUTC},
		{in: "20241231T235960Z", want: datetime.Wall{Year: 2024, Month: 12, Day: 31, Hour: 23, Min: 59, Sec: 60}, wantForm: formUTC},
		{in: "20240229", want: datetime.Wall{Year: 2024, Month: 2, Day: 29}, wantForm: formDate},
		{in: "20250229", wantErr: true},
		{in: "00001231", wantErr: true},
		{in: "20261310", wantErr: true},
		{in: "20260310T240000", wantErr: true},
		{in: "20260310T190000", valueParam: "DATE", wantErr: true},
		{in: "20260310", valueParam: "DATE-TIME", wantErr: true},
		{in: "20260310", valueParam: "PERIOD", wantErr: true},
		{in: "20260310T1900", wantErr: true},
		{in: "20260310T190000+01", wantErr: true},
		{in: "2026-03-10", wantErr: true},
		{in: "+2026031", wantErr: true},
	}
	for _, tc := range tests {
		got, form, err := parseTimeValue(tc.in, tc.valueParam)
		if tc.wantErr {
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("parseTimeValue(%q, %q) error = %v, want ErrSyntax", tc.in, tc.valueParam, err)
			}
			continue
		}
		if err != nil || got != tc.want || form != tc.wantForm {
			t.Errorf("parseTimeValue(%q, %q) = %v, %v, %v; want %v, %v", tc.in, tc.valueParam, got, form, err, tc.want, tc.wantForm)
		}
	}
}

func TestParseDuration(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	// The night of 2026-03-29 is 23 hours long in Paris.
	start := time.Date(2026, 3, 28, 19, 0, 0, 0, paris)
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{in: "PT2H30M", want: start.Add(150 * time.Minute)},
		{in: "+PT90S", want: start.Add(90 * time.Second)},
		{in: "P1D", want: time.Date(2026, 3, 29, 19, 0, 0, 0, paris)},
		{in: "PT24H", want: time.Date(2026, 3, 29, 20, 0, 0, 0, paris)},
		{in: "P1DT1H", want: time.Date(2026, 3, 29, 20, 0, 0, 0, paris)},
		{in: "P2W", want: time.Date(2026, 4, 11, 19, 0, 0, 0, paris)},
		{in: "-PT1H", wantErr: true},
		{in: "P", wantErr: true},
		{in: "PT", wantErr: true},
		{in: "P1H", wantErr: true},
		{in: "PT1D", wantErr: true},
		{in: "P1D1D", wantErr: true},
		{in: "PTT1H", wantErr: true},
		{in: "P1234567890D", wantErr: true},
		{in: "P99999999D", wantErr: true},
		{in: "PT999999999H", wantErr: true},
	}
	for _, tc := range tests {
		d, err := parseDuration(tc.in)
		if tc.wantErr {
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("parseDuration(%q) error = %v, want ErrSyntax", tc.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseDuration(%q): %v", tc.in, err)
			continue
		}
		if got := d.after(start); !got.Equal(tc.want) {
			t.Errorf("%s after %v = %v, want %v", tc.in, start, got, tc.want)
		}
	}
}

func TestOffset(t *testing.T) {
	tests := []struct {
		text string
		off  int
	}{
		{text: "+0100", off: 3600},
		{text: "-0330", off: -(3*3600 + 30*60)},
		{text: "+1030", off: 10*3600 + 30*60},
		{text: "+0000", off: 0},
		{text: "+000921", off: 9*60 + 21},
	}
	for _, tc := range tests {
		if got, err := parseOffset(tc.text); err != nil || got != tc.off {
			t.Errorf("parseOffset(%q) = %d, %v; want %d", tc.text, got, err, tc.off)
		}
		if got := string(appendOffset(nil, tc.off)); got != tc.text {
			t.Errorf("appendOffset(%d) = %q, want %q", tc.off, got, tc.text)
		}
	}
	for _, bad := range []string{"0100", "+01", "+2400", "+0160", "+01:00", "+010060"} {
		if _, err := parseOffset(bad); !errors.Is(err, ErrSyntax) {
			t.Errorf("parseOffset(%q) error = %v, want ErrSyntax", bad, err)
		}
	}
}

func TestGeo(t *testing.T) {
	tests := []struct {
		in   string
		want Geo
	}{
		{in: "48.85341;2.3488", want: Geo{Lat: 48.85341, Lng: 2.3488}},
		{in: "37.78,-122.40", want: Geo{Lat: 37.78, Lng: -122.4}},
		{in: " -33.8688 ; 151.2093 ", want: Geo{Lat: -33.8688, Lng: 151.2093}},
	}
	for _, tc := range tests {
		got, err := parseGeo(tc.in)
		if err != nil || *got != tc.want {
			t.Errorf("parseGeo(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"48.8", "91;0", "0;181", "NaN;0", "a;b", ""} {
		if _, err := parseGeo(bad); !errors.Is(err, ErrSyntax) {
			t.Errorf("parseGeo(%q) error = %v, want ErrSyntax", bad, err)
		}
	}
	if got := string(appendGeo(nil, Geo{Lat: 52.0907, Lng: -0.1})); got != "52.0907;-0.1" {
		t.Errorf("appendGeo = %q", got)
	}
}
