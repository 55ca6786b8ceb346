// Package env defines what pats needs of a text environment and keeps the
// registry of environments.
//
// An Env is a family of tasks grouped by task type and split (train,
// valid_seen, valid_unseen). Reset(id, seed) starts an Episode, which is a
// deterministic function of (id, seed): the same pair gives the same goal,
// observations and outcomes for the same actions, whatever else runs at the
// same time. Envs are safe for concurrent use; all mutable state lives in
// the Episode, and one Episode is driven by one goroutine. A Step carries a
// reward, a done flag, the success flag, a score in [0, 1] (1 on success)
// and whether the action was valid; Features names what mattered in an
// episode (e.g. "action:heat", "failure:max_steps") for evidence cards.
//
// An Agent is a policy over the observable interface only (goal,
// observations, admissible actions): the oracle of each environment, the
// seeded RandomAgent, and checkpoint policies elsewhere.
//
// The built-in environments register themselves under their names
// (household, shop, searchqa) when their packages are imported. Open also
// accepts "exec:COMMAND": OpenExec runs COMMAND as a child process that
// speaks a JSON-lines protocol on stdin/stdout (docs/env-protocol.md), so
// an environment written in any language (real ALFWorld, WebShop) plugs in;
// Serve is the server side of the same protocol for a Go Env. One child
// handles one request at a time; ExecOptions.Workers starts several
// children of one command, each episode playing on one of them. Open also
// accepts an http:// or https:// URL: OpenServer talks to an environment
// server in the HTTP shape of OpenEnv's reset, step and state, with
// requests in flight bounded, timed out, retried and cancelled by a
// context. Neither has an oracle (Oracle returns nil). An environment that
// can no longer be used fails with a BrokenError, which wraps its cause.
package env
