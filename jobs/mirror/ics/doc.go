// Package ics imports an iCalendar file or feed (RFC 5545) into the store: `calendard import ics`
// and its --follow mirror (issue 14).
package ics
