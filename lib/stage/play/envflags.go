package play

import (
	"context"
	"runtime"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/remote"
)

// EnvOptions are the options of the environments that run outside the
// process (EnvFlags): an environment server (--env http://...) and the
// children of an exec: environment.
type EnvOptions struct {
	Concurrency int           // server: requests in flight, and the text policies' episodes in flight; 0: env.DefaultServerConcurrency
	Timeout     time.Duration // server: per request; 0: env.DefaultServerTimeout
	Retries     int           // server: retries of a request (EnvFlags' default 3; 0: none)
	Workers     int           // exec: children; 0 or 1: one
	// ServerSet and WorkersSet say the user gave a server option or
	// --env-workers: refused with an environment of another kind.
	ServerSet, WorkersSet bool
	// Context ends every wait on the environment at once (nil: never; the
	// commands' SIGINT and SIGTERM end them through lib/cleanup).
	Context context.Context
}

// EnvFlags declares the options of servers and exec: children.
func EnvFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "env-concurrency", Value: env.DefaultServerConcurrency, Usage: "environment servers (--env http://...): requests in flight at once; the oracle and random policies play as many episodes at once"},
		&cli.DurationFlag{Name: "env-timeout", Value: env.DefaultServerTimeout, Usage: "environment servers: the longest wait for one answer before the request is retried"},
		&cli.IntFlag{Name: "env-retries", Value: env.DefaultServerRetries, Usage: "environment servers: retries of a request after a timeout, a dropped connection or an answer 429, 502, 503 or 504 (waits 0.2s, doubled each time); then the run fails"},
		&cli.IntFlag{Name: "env-workers", Value: 1, Usage: "exec: environments: child processes serving the episodes (each episode plays on one), so that episodes do not wait on one child"},
	}
}

// EnvFrom reads the options of EnvFlags.
func EnvFrom(c *cli.Context) EnvOptions {
	return EnvOptions{Concurrency: c.Int("env-concurrency"), Timeout: c.Duration("env-timeout"), Retries: c.Int("env-retries"),
		Workers: c.Int("env-workers"), ServerSet: c.IsSet("env-concurrency") || c.IsSet("env-timeout") || c.IsSet("env-retries"),
		WorkersSet: c.IsSet("env-workers")}
}

// check refuses values out of range and options given for an environment
// of another kind (name is --env).
func (o EnvOptions) check(name string) error {
	switch {
	case o.ServerSet && !remote.IsURL(name):
		return command.Usagef("--env-concurrency, --env-timeout and --env-retries go with an environment server (--env http://HOST:PORT)")
	case o.WorkersSet && !strings.HasPrefix(name, "exec:"):
		return command.Usagef("--env-workers goes with an exec: environment (--env exec:COMMAND)")
	case o.Concurrency < 0 || (o.ServerSet && o.Concurrency == 0):
		return command.Usagef("--env-concurrency must be at least 1, got %d", o.Concurrency)
	case o.Timeout < 0 || (o.ServerSet && o.Timeout == 0):
		return command.Usagef("--env-timeout must be more than 0, got %s", o.Timeout)
	case o.Retries < 0:
		return command.Usagef("--env-retries must not be negative, got %d", o.Retries)
	case o.Workers < 0 || (o.WorkersSet && o.Workers == 0):
		return command.Usagef("--env-workers must be at least 1, got %d", o.Workers)
	case o.Workers > MaxEnvWorkers:
		return command.Usagef("--env-workers %d is more than %d", o.Workers, MaxEnvWorkers)
	}
	return nil
}

// MaxEnvWorkers bounds --env-workers: children are processes.
const MaxEnvWorkers = 256

// open opens the environment name with these limits and stepTimeout
// (--step-timeout, exec: children).
func (o EnvOptions) open(name string, stepTimeout time.Duration) (env.Env, error) {
	return env.OpenWith(name, env.OpenOptions{
		Exec:   env.ExecOptions{StepTimeout: stepTimeout, Workers: o.Workers, Context: o.Context},
		Server: env.ServerOptions{Timeout: o.Timeout, Retries: o.Retries, Concurrency: o.Concurrency, Context: o.Context},
	})
}

// workers is the episodes the oracle and random policies play at once
// against the environment name (rollout.Options.Workers; a checkpoint's
// are --batch, a server policy's --concurrency): as many as the server
// takes requests or the exec: children, and no fewer than the CPUs; 0
// (the CPUs) for the other environments.
func (o EnvOptions) workers(name string) int {
	switch {
	case remote.IsURL(name):
		c := o.Concurrency
		if c <= 0 {
			c = env.DefaultServerConcurrency
		}
		return max(runtime.GOMAXPROCS(0), c)
	case strings.HasPrefix(name, "exec:") && o.Workers > 1:
		return max(runtime.GOMAXPROCS(0), o.Workers)
	}
	return 0
}
