package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/jobs/webhook"
	"github.com/calendard/calendard/storage"
)

var _ webhook.Store = (*storage.DB)(nil)

// webhookCommands are the operator commands on webhooks (README "Webhooks"); all but create name the
// subscription by its ID, the first argument after the command.
var webhookCommands = []string{"webhook create", "webhook list", "webhook disable", "webhook enable", "webhook delete",
	"webhook rotate-secret", "webhook test"}

// webhookID reads the ID argument of a webhook command into a, for the commands that take one.
func webhookID(cmd string, rest []string, a *adminArgs) error {
	if cmd == "webhook create" || cmd == "webhook list" {
		if len(rest) > 0 {
			return fmt.Errorf("%s takes no argument, got %q", cmd, rest[0])
		}
		return nil
	}
	if len(rest) != 1 {
		return fmt.Errorf("%s needs the webhook's ID: calendard %s ID", cmd, cmd)
	}
	id, err := strconv.ParseUint(rest[0], 10, 64)
	if err != nil || id == 0 {
		return fmt.Errorf("%s: %q is not a webhook ID", cmd, rest[0])
	}
	a.ID = id
	return nil
}

// newDeliverer builds the webhooks' deliverer on db with cfg's settings.
func newDeliverer(cfg Config, db *storage.DB, log *zap.Logger) *webhook.Deliverer {
	return webhook.New(db, webhook.Options{Logger: log, UserAgent: "calendard/" + version,
		Timeout: cfg.WebhookTimeout, Schedule: cfg.WebhookRetries})
}

// runWebhook carries out a webhook command on an open store, for the CLI and the control socket.
func runWebhook(ctx context.Context, db *storage.DB, d *webhook.Deliverer, cmd string, a adminArgs, stdout io.Writer) error {
	switch cmd {
	case "webhook create":
		return createWebhook(ctx, db, a, stdout)
	case "webhook list":
		return listWebhooks(ctx, db, stdout)
	case "webhook disable", "webhook enable":
		enable := cmd == "webhook enable"
		_, err := db.UpdateWebhook(ctx, a.ID, func(w *storage.Webhook) error {
			w.Disabled, w.Reason = !enable, ""
			if enable {
				// A fresh start: the delivery that failed is tried again at once, under its ID.
				w.Failures, w.RetryAt = 0, time.Time{}
			} else {
				w.Reason = "disabled by an operator"
			}
			return nil
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%sd webhook %d\n", strings.TrimPrefix(cmd, "webhook "), a.ID)
	case "webhook delete":
		if err := db.DeleteWebhook(ctx, a.ID); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "deleted webhook %d\n", a.ID)
	case "webhook rotate-secret":
		w, err := db.RotateWebhookSecret(ctx, a.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "secret: %s\n(shown once; the old secret also signs deliveries until %s)\n", w.Secret,
			w.OldSecretUntil.Format(time.RFC3339))
	case "webhook test":
		status, err := d.Test(ctx, a.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "the receiver answered %d %s\n", status, http.StatusText(status))
		if status < 200 || status > 299 {
			return fmt.Errorf("webhook test: the receiver answered %d, not 2xx", status)
		}
	}
	return nil
}

func createWebhook(ctx context.Context, db *storage.DB, a adminArgs, stdout io.Writer) error {
	if a.URL == "" {
		return errors.New("webhook create needs --url URL")
	}
	kinds, err := storage.ParseWebhookKinds(a.Types)
	if err != nil {
		return err
	}
	langs, err := storage.ParseWebhookLangs(a.Langs)
	if err != nil {
		return err
	}
	if err := webhook.CheckURL(ctx, a.URL, a.AllowHTTP, a.AllowPrivate); err != nil {
		return err
	}
	w, err := db.CreateWebhook(ctx, storage.Webhook{URL: a.URL, Kinds: kinds, Langs: langs, AllowHTTP: a.AllowHTTP,
		AllowPrivate: a.AllowPrivate}, a.As)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "created webhook %d\nsecret: %s\n(shown once: the receiver verifies deliveries with it)\n", w.ID, w.Secret)
	return nil
}

func listWebhooks(ctx context.Context, db *storage.DB, stdout io.Writer) error {
	hooks, err := db.Webhooks(ctx)
	if err != nil {
		return err
	}
	users, err := db.Users(ctx)
	if err != nil {
		return err
	}
	logins := map[uint64]string{0: "(anonymous)"}
	for _, u := range users {
		logins[u.ID] = u.Login
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tURL\tAS\tTYPES\tLANGS\tCURSOR\tSTATE")
	for _, w := range hooks {
		kinds := make([]string, len(w.Kinds))
		for i, k := range w.Kinds {
			kinds[i] = k.String()
		}
		langs := make([]string, len(w.Langs))
		for i, l := range w.Langs {
			langs[i] = string(l)
		}
		state := "enabled"
		switch {
		case w.Disabled:
			state = "disabled: " + w.Reason
		case w.Failures > 0:
			state = fmt.Sprintf("retrying (%d failed, next %s)", w.Failures, w.RetryAt.Format(time.RFC3339))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\n", w.ID, w.URL, logins[w.UserID], orAll(kinds), orAll(langs), w.Cursor, state)
	}
	return tw.Flush()
}

func orAll(s []string) string {
	if len(s) == 0 {
		return "all"
	}
	return strings.Join(s, ",")
}

// startWebhooks delivers the webhooks while this process leads them: at once on a bbolt file, on one
// node of a cluster at a time (storage.DB.Elect), so that a receiver gets each delivery from one
// sender and in order. The returned stop ends the deliveries and waits for them.
func (a *app) startWebhooks(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		var stopRun func()
		_ = a.db.Elect(ctx, "webhooks", func(lead bool) {
			a.log.Info("webhooks leadership", zap.Bool("leader", lead))
			if !lead {
				if stopRun != nil {
					stopRun()
					stopRun = nil
				}
				return
			}
			rctx, rcancel := context.WithCancel(ctx)
			ran := make(chan struct{})
			go func() {
				defer close(ran)
				_ = a.webhooks.Run(rctx)
			}()
			stopRun = func() { rcancel(); <-ran }
		})
		if stopRun != nil {
			stopRun()
		}
	}()
	return func() { cancel(); <-done }
}

// webhookStats gives the deliverer's figures to the metrics, which cannot import jobs/webhook
// (STYLE 2).
func webhookStats(d *webhook.Deliverer) func(context.Context) (handlers.WebhookStats, error) {
	return func(ctx context.Context) (handlers.WebhookStats, error) {
		st := d.Stats()
		out := handlers.WebhookStats{Attempts: st.Attempts, Buckets: webhook.LatencyBuckets, Latency: st.Latency,
			LatencySum: st.LatencySum, LatencyCount: st.LatencyCount}
		backlogs, err := d.Backlogs(ctx)
		for _, b := range backlogs {
			out.Backlogs = append(out.Backlogs, handlers.WebhookBacklog(b))
		}
		return out, err
	}
}
