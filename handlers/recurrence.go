package handlers

import "strings"

// parseRecurrence reads an event's recurrence: an array of RFC 5545 lines, as Google Calendar's
// recurrence[], or one string of lines (a form field); commas belong to the lines (BYDAY=MO,TU), so
// only line breaks separate them. Whether the lines make a series is the store's rule (storage.EventInput.Recurrence),
// reported against this parameter.
func parseRecurrence(_ *request, v any) (any, *problem) {
	const message = "must be an array of RRULE, RDATE and EXDATE lines"
	raw, ok := v.([]any)
	if !ok {
		raw = []any{v}
	}
	lines := []string{}
	for _, item := range raw {
		s, ok := item.(string)
		if !ok {
			return nil, &problem{code: "rest_invalid_type", message: message}
		}
		for line := range strings.Lines(s) {
			if line = strings.TrimSpace(line); line != "" {
				lines = append(lines, line)
			}
		}
	}
	if len(lines) > maxItems {
		return nil, tooLong(maxItems, "lines")
	}
	return lines, nil
}
