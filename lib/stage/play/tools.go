package play

import (
	"slices"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/policy"
	"github.com/pats-rl/pats/lib/rollout"
)

// toolFormat applies --action-format (issue 62): tags (or unset) keeps
// fm; tools makes the environment's declared tools, and read_skill when
// a slate is shown, the actions, rendered by the chat template of the
// checkpoint folder dir (the policy's, or --tokenizer's for the oracle,
// random and server policies). tools needs the chatml prompt format, a
// checkpoint folder with a chat template and an environment that
// declares tools; anything else is a usage error.
func (f Options) toolFormat(o *rollout.Options, fm agent.Format, dir string) (agent.Format, error) {
	switch {
	case f.ActionFormat == "" || f.ActionFormat == "tags":
		return fm, nil
	case !slices.Contains(agent.ActionFormatNames, f.ActionFormat):
		return nil, command.Usagef("--action-format %q: want tags or tools", f.ActionFormat)
	}
	chat, ok := fm.(*agent.ChatML)
	if !ok {
		return nil, command.Usagef("--action-format tools needs the chatml prompt format, not %s", fm.Name())
	}
	if dir == "" {
		return nil, command.Usagef("--action-format tools renders the tools through a checkpoint's chat template: give a checkpoint --policy, or --tokenizer with the oracle, random or a server policy")
	}
	tools := env.Tools(o.Env)
	if len(tools) == 0 {
		return nil, command.Usagef("--action-format tools: environment %s declares no tools (an exec: child declares them in its info answer's \"tools\")", o.Env.Name())
	}
	tf, err := policy.ToolFormat(chat, dir, tools, f.Skills || f.SkillsDir != "")
	if err != nil {
		return nil, command.Usagef("--action-format tools: %v", err)
	}
	return tf, nil
}
