package handlers

import (
	"context"
	"strconv"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// WebhookStats is what the webhook deliveries add up to, and how far behind each subscription is (the
// deliverer's figures, which this package cannot import).
type WebhookStats struct {
	// Attempts counts the delivery attempts by outcome: success, http_error, network_error.
	Attempts map[string]uint64
	// Buckets are the upper bounds, in seconds, of the latency histogram, and Latency the attempts that
	// took at most each, cumulatively; LatencySum is their total time and LatencyCount their number.
	Buckets      []float64
	Latency      []uint64
	LatencySum   float64
	LatencyCount uint64
	Backlogs     []WebhookBacklog
}

// WebhookBacklog is the change-log entries after one subscription's cursor, and whether it delivers.
type WebhookBacklog struct {
	ID      uint64
	Entries uint64
	Enabled bool
}

// webhookScrape reports the webhooks' figures of the serving handler when scraped.
type webhookScrape struct {
	serving                    *atomic.Pointer[Handler]
	attempts, latency, backlog *prometheus.Desc
	enabled                    *prometheus.Desc
}

func newWebhookScrape(serving *atomic.Pointer[Handler]) *webhookScrape {
	hook := []string{"webhook"}
	return &webhookScrape{
		serving: serving,
		attempts: prometheus.NewDesc("calendard_webhook_deliveries_total",
			"Webhook delivery attempts made by this node, by outcome: success (2xx), http_error (any other status), network_error (no answer: refused address, timeout, connection).",
			[]string{"outcome"}, nil),
		latency: prometheus.NewDesc("calendard_webhook_delivery_seconds",
			"Time from sending a webhook delivery to the receiver's answer or the failure.", nil, nil),
		backlog: prometheus.NewDesc("calendard_webhook_backlog_entries",
			"Change-log entries after the webhook's cursor: what it has not delivered yet.", hook, nil),
		enabled: prometheus.NewDesc("calendard_webhook_enabled",
			"1 when the webhook delivers, 0 when disabled (by an operator, a 410, or retries exhausted).", hook, nil),
	}
}

func (s *webhookScrape) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{s.attempts, s.latency, s.backlog, s.enabled} {
		ch <- d
	}
}

func (s *webhookScrape) Collect(ch chan<- prometheus.Metric) {
	h := s.serving.Load()
	if h == nil || h.webhooks == nil {
		return
	}
	st, err := h.webhooks(context.Background())
	if err != nil {
		ch <- prometheus.NewInvalidMetric(s.backlog, err)
	}
	for outcome, n := range st.Attempts {
		ch <- prometheus.MustNewConstMetric(s.attempts, prometheus.CounterValue, float64(n), outcome)
	}
	buckets := make(map[float64]uint64, len(st.Buckets))
	for i, b := range st.Buckets {
		buckets[b] = st.Latency[i]
	}
	ch <- prometheus.MustNewConstHistogram(s.latency, st.LatencyCount, st.LatencySum, buckets)
	for _, b := range st.Backlogs {
		id := strconv.FormatUint(b.ID, 10)
		ch <- prometheus.MustNewConstMetric(s.backlog, prometheus.GaugeValue, float64(b.Entries), id)
		on := 0.0
		if b.Enabled {
			on = 1
		}
		ch <- prometheus.MustNewConstMetric(s.enabled, prometheus.GaugeValue, on, id)
	}
}
