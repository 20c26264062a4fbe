package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"text/tabwriter"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
)

const usage = `usage: calendard <command> [flags]

commands:
  serve                   run the service (default)
  user create             --login L --email E --role R [--display-name N]
  user list
  app-password create     --user L [--name LABEL]   (prints the password once)
  app-password revoke     --user L --name LABEL
  seed                    --events N [--seed S]   (adds a generated calendar; the server must be stopped)
  reindex                 drop and rebuild the search indexes from the store (the server must be stopped)
  version

Every command takes --data-dir and the other flags of serve; run "calendard serve -h" for them.`

// run is the whole program; main only adds the process around it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, getenv, stderr)
	case "user", "app-password":
		if len(args) == 0 {
			return fmt.Errorf("%s needs a subcommand; run calendard help", cmd)
		}
		return admin(ctx, cmd+" "+args[0], args[1:], getenv, stdout, stderr)
	case "seed":
		return seed(ctx, args, getenv, stdout, stderr)
	case "reindex":
		return reindex(ctx, args, getenv, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q; run calendard help", cmd)
}

func newLogger() (*zap.Logger, error) {
	cfg := zap.NewProductionConfig()
	cfg.Sampling = nil
	return cfg.Build()
}

func serve(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	cfg, err := parseConfig("serve", args, getenv, stderr)
	if err != nil {
		return err
	}
	if cfg.CPUProfile != "" {
		f, err := os.Create(cfg.CPUProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	log, err := newLogger()
	if err != nil {
		return err
	}
	a, err := open(ctx, cfg, log, stderr)
	if err != nil {
		return err
	}
	defer a.close()
	if err := a.listen(); err != nil {
		return err
	}
	return a.serve(ctx)
}

// admin runs the operator commands on the store (CONTRACT 7.7).
func admin(ctx context.Context, cmd string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	login := fs.String("login", "", "login of the new user")
	email := fs.String("email", "", "e-mail of the new user")
	role := fs.String("role", "", "role: administrator, editor, author, contributor, subscriber")
	display := fs.String("display-name", "", "display name (defaults to the login)")
	user := fs.String("user", "", "login of the user")
	name := fs.String("name", "", "label of the application password")
	dataDir := fs.String("data-dir", envOr(getenv, "CALENDAR_DATA_DIR", "./data"), "directory holding all state (CALENDAR_DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := parseConfig(cmd, []string{"--data-dir", *dataDir}, getenv, stderr)
	if err != nil {
		return err
	}
	db, err := openStore(cfg, zap.NewNop())
	if err != nil {
		return err
	}
	defer db.Close()
	switch cmd {
	case "user create":
		u, err := db.CreateUser(ctx, storage.User{Login: *login, Email: *email, Role: storage.Role(*role), DisplayName: *display})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created user %d (%s)\n", u.ID, u.Login)
	case "user list":
		users, err := db.Users(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tLOGIN\tEMAIL\tROLE\tDISPLAY NAME")
		for _, u := range users {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", u.ID, u.Login, u.Email, u.Role, u.DisplayName)
		}
		return tw.Flush()
	case "app-password create":
		if *name == "" {
			*name = "default"
		}
		pw, err := db.CreateAppPassword(ctx, *user, *name)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, pw)
	case "app-password revoke":
		return db.RevokeAppPassword(ctx, *user, *name)
	default:
		return fmt.Errorf("unknown command %q; run calendard help", cmd)
	}
	return nil
}
