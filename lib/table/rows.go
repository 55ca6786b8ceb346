package table

// Row kinds. Each struct below is the single source of its file schema: the
// parquet tags name the columns, lists are always tagged `list`, and
// docs/schemas.md is generated from these declarations (a test keeps the two
// in step). Column names are part of the contract that later stages and
// users' notebooks rely on: renaming one is a schema version change.

// Token roles: one per token of a trajectory. Loss reaches only the
// policy-written roles (RoleAction and RoleSkillName); SkillGate routes credit
// by role.
const (
	RoleSystem      int8 = 0 // fixed instructions at the start of the context
	RoleScaffold    int8 = 1 // the rendered PATS scaffold (absent at deployment)
	RoleSkillSlate  int8 = 2 // the candidate skills' names and descriptions
	RoleTask        int8 = 3 // the task text and the first observation
	RoleObservation int8 = 4 // environment feedback and prompt markers
	RoleSkillBody   int8 = 5 // the body of a skill the policy read
	RoleAction      int8 = 6 // policy-written execution tokens
	RoleSkillName   int8 = 7 // policy-written tokens naming the chosen skill
)

// RoleNames maps each role to its name in docs and tables.
var RoleNames = []string{"system", "scaffold", "skill_slate", "task", "observation", "skill_body", "action", "skill_name"}

// PolicyWritten reports whether tokens of role r were written by the policy.
func PolicyWritten(r int8) bool { return r == RoleAction || r == RoleSkillName }

// Trajectory is one episode: ids, outcome, the turns as text and the token
// sequence the policy saw and wrote, with a role and a behaviour
// log-probability per token.
type Trajectory struct {
	Run             string    `parquet:"run,optional"`              // run name given to rollout; NULL without --run (version 7; older files: "")
	Iteration       int32     `parquet:"iteration"`                 // training iteration k
	Env             string    `parquet:"env"`                       // environment name
	Split           string    `parquet:"split"`                     // train, valid_seen, valid_unseen, test
	TaskID          string    `parquet:"task_id"`                   // stable id of the task within the environment
	TaskType        string    `parquet:"task_type"`                 // the environment's task type
	GroupID         string    `parquet:"group_id"`                  // episodes of one task in one iteration share it
	Sample          int32     `parquet:"sample"`                    // index of the episode within its group
	Seed            int64     `parquet:"seed"`                      // seed of this episode (environment and sampling)
	Policy          string    `parquet:"policy"`                    // oracle, random, the checkpoint path, or URL#MODEL for an inference server (rollout --policy http://...)
	Success         bool      `parquet:"success"`                   // the environment's success flag
	Reward          float64   `parquet:"reward"`                    // episode reward used for advantages
	Score           float64   `parquet:"score"`                     // environment score in [0,1]
	Steps           int32     `parquet:"steps"`                     // environment steps taken
	FailureMode     string    `parquet:"failure_mode,optional"`     // NULL on success (version 7; older files: ""), else e.g. max_steps, invalid_actions, loop, wrong_object
	Goal            string    `parquet:"goal"`                      // the task text
	Actions         []string  `parquet:"actions,list"`              // action text of each turn
	Observations    []string  `parquet:"observations,list"`         // observation after each turn (index 0 is the first observation)
	Features        []string  `parquet:"features,list"`             // named features of the episode for evidence cards
	Tokens          []int32   `parquet:"tokens,list"`               // token ids of the whole episode context
	Roles           []int8    `parquet:"roles,list"`                // one role per token (see RoleNames)
	Logprobs        []float32 `parquet:"logprobs,list"`             // behaviour log-probability of each policy-written token, 0 elsewhere (an inference server's as it answered them; learn grpo recomputes those)
	Slate           []string  `parquet:"slate,list"`                // candidate skill names shown, in order
	Reads           []string  `parquet:"reads,list"`                // skill names of the read actions, in order (from version 5 every read_skill action, see reads_outcome)
	ReadsRight      []bool    `parquet:"reads_right,list"`          // per read: was it a right skill for the task type
	ReadsMisleading []bool    `parquet:"reads_misleading,list"`     // per read: was it a misleading skill
	NTokens         int32     `parquet:"n_tokens"`                  // len(tokens)
	NPolicyTokens   int32     `parquet:"n_policy_tokens"`           // tokens of the policy-written roles
	NScaffoldTokens int32     `parquet:"n_scaffold_tokens"`         // tokens of role scaffold
	Tokenizer       string    `parquet:"tokenizer"`                 // content hash of the tokenizer that produced tokens
	ScaffoldVersion *int32    `parquet:"scaffold_version,optional"` // version k of the snapshot rendered; NULL without a scaffold (version 7; older files: -1, read as NULL)

	// Added in version 2 (read as empty from older files): per-turn
	// columns for step-level credit (GiGPO in lib/rl).
	StepKeys    []string  `parquet:"step_keys,list" since:"2"`    // version 2: per turn (one per entry of actions): anchor-state key of the state the turn acted from (env.StateKey of the observation, or the environment's own key)
	StepRewards []float64 `parquet:"step_rewards,list" since:"2"` // version 2: per turn: the environment's reward for it (0 for a skill read)

	// Added in version 3 (read as 0 from older files): chat-formatted
	// episodes (lib/agent's chatml).
	Invalid int32 `parquet:"invalid" since:"3"` // version 3: answers without a well-formed action (chatml): no step, reward less --invalid-penalty each

	// Added in version 4 (read as 0 or empty from older files): the
	// history window (rollout --history, lib/agent's Window). Without a
	// window they are 0 and empty and every answer saw tokens[:its start].
	History       int32   `parquet:"history" since:"4"`             // version 4: turns kept in full (--history); 0 = the whole episode
	PromptLen     int32   `parquet:"prompt_len" since:"4"`          // version 4: tokens of the prompt every answer saw (before the first answer's cue); 0 without a window
	TurnAt        []int32 `parquet:"turn_at,list" since:"4"`        // version 4: per answer (policy turn), with a window: index in tokens of its first token; it runs to the next token that is not policy-written
	TurnFrom      []int32 `parquet:"turn_from,list" since:"4"`      // version 4: per answer, with a window: index in tokens where the history it saw starts; it saw tokens[:prompt_len], then, when turn_from > prompt_len, history_marker, then tokens[turn_from:turn_at]
	HistoryMarker []int32 `parquet:"history_marker,list" since:"4"` // version 4: token ids of the line that stands for dropped turns; empty without a window

	// Added in version 5 (read as NULL or empty from older files): how a
	// checkpoint policy drew its tokens and which weights it was; NULL for
	// a policy that is not a checkpoint (oracle, random, scripted; version
	// 8, older files: 0, read as NULL where policy_hash is empty). The
	// logprobs column is log softmax(logits / temperature) over the whole
	// vocabulary (temperature 1 when greedy); top-p, top-k and the
	// repetition penalty only chose the token (model.Rule).
	Temperature       *float64 `parquet:"temperature,optional" since:"5"`        // version 5: sampling temperature of a checkpoint policy (0: greedy); NULL: not a checkpoint (version 8; older files: 0)
	TopP              *float64 `parquet:"top_p,optional" since:"5"`              // version 5: nucleus mass of a checkpoint policy (1: no cut); NULL: not a checkpoint (version 8; older files: 0)
	TopK              *int32   `parquet:"top_k,optional" since:"5"`              // version 5: top-k cut of a checkpoint policy (0: none); NULL: not a checkpoint (version 8; older files: 0)
	RepetitionPenalty *float64 `parquet:"repetition_penalty,optional" since:"5"` // version 5: repetition penalty of a checkpoint policy (1: none); NULL: not a checkpoint (version 8; older files: 0)
	PolicyHash        string   `parquet:"policy_hash,optional" since:"5"`        // version 5: content hash of the checkpoint's weights (model.safetensors and config.json; for an inference server, those of the folder it was started from, --tokenizer); NULL: not a checkpoint (version 7; older files: "")

	// Added in version 6 (read as empty from older files): skill bodies
	// kept in view under a window, and every read action recorded.
	BodyAt       []int32  `parquet:"body_at,list" since:"6"`       // version 6: with a window, per skill body served after the prompt (in order): index in tokens of the first token of its message; an answer whose history starts at or after the body's end saw tokens[body_at:body_end] after the prompt, before history_marker, bodies in order
	BodyEnd      []int32  `parquet:"body_end,list" since:"6"`      // version 6: per body_at: index in tokens one past the body's message (the next cue)
	ReadsOutcome []string `parquet:"reads_outcome,list" since:"6"` // version 6: per read action (entry of reads): served (the body was shown), unknown (no such skill on the slate) or over_limit (the episode had read MaxReads bodies); empty in older files, whose reads are the served ones and reads of unknown names under the limit
	ReadTurns    []int32  `parquet:"read_turns,list" since:"6"`    // version 6: per read action: its turn (index in actions)
}

// Outcomes of a read action (Trajectory.ReadsOutcome).
const (
	ReadServed    = "served"
	ReadUnknown   = "unknown"
	ReadOverLimit = "over_limit"
)

// Scopes of an evaluation row (EvalMetrics.Scope).
const (
	ScopeAll  = "all"  // the row summarises every episode of its group
	ScopeType = "type" // the row summarises the episodes of one task type
)

// EvalMetrics is one row of an evaluation table: overall (Scope "all",
// TaskType NULL) or for one task type (Scope "type"). Files of version 2
// or older marked the overall row by task type "all"; they read as Scope
// "all" with TaskType NULL.
type EvalMetrics struct {
	Run            string   `parquet:"run,optional"`       // run name (evaluate --run, else the trajectories' run); NULL when none (version 3; older files: "")
	Env            string   `parquet:"env"`                // environment
	Split          string   `parquet:"split"`              // task split
	Policy         string   `parquet:"policy"`             // oracle, random, or the checkpoint path
	Scaffold       string   `parquet:"scaffold,optional"`  // snapshot path; NULL without a scaffold (version 3; older files: "")
	TaskType       string   `parquet:"task_type,optional"` // the task type of a "type" row; NULL on the "all" row (version 3; older files: "all")
	Episodes       int32    `parquet:"episodes"`
	Success        float64  `parquet:"success"`                       // share of successful episodes
	Score          float64  `parquet:"score"`                         // mean score
	Steps          float64  `parquet:"steps"`                         // mean steps per episode
	Tokens         float64  `parquet:"tokens"`                        // mean tokens per episode
	PolicyTokens   float64  `parquet:"policy_tokens"`                 // mean policy-written tokens per episode
	ReadsPerEp     float64  `parquet:"reads_per_episode"`             // mean skill reads per episode
	RightReadRate  *float64 `parquet:"right_read_rate,optional"`      // share of reads that were right; NULL without reads (version 4; older files: 0, read as NULL where reads_per_episode is 0)
	MisleadingRate *float64 `parquet:"misleading_read_rate,optional"` // share of reads that were misleading; NULL without reads (version 4; older files: 0, read as NULL where reads_per_episode is 0)

	// Added in version 2: version 1 files lack the column and read as NULL
	// (unknown), not 0.
	MisleadingExposure *float64 `parquet:"misleading_exposure,optional" since:"2"` // version 2: share of episodes that read at least one misleading skill (SkillGate's exposure per episode); 0 where none did, with reads or without; NULL without episodes (version 5; versions 2 to 4: 0, read as NULL) and in version 1 files, which lack the column

	// Added in version 3: the row's scope, and what the episodes were
	// played with as columns (NULL when unknown or not shared by all of
	// the row's episodes).
	Scope       string   `parquet:"scope" since:"3"`                // version 3: all (every episode of the group) or type (one task type)
	Iteration   *int32   `parquet:"iteration,optional" since:"3"`   // version 3: training iteration of the episodes; NULL when they differ or are unknown
	Seed        *int64   `parquet:"seed,optional" since:"3"`        // version 3: the seed of the command that played them (evaluate --seed, or the trajectory files' pats.seed); NULL when the files differ or none is recorded
	Temperature *float64 `parquet:"temperature,optional" since:"3"` // version 3: sampling temperature of a checkpoint policy (0: greedy); NULL for other policies or when the episodes differ
}

// UpgradeFrom reads an older row: the overall row's task type "all"
// becomes Scope "all" with no task type (versions 1 and 2), the read
// rates of a row without reads (0) become NULL (versions 1 to 3), and so
// does the misleading exposure of a row without episodes (0; versions 2
// to 4). Version 1 has no misleading exposure column: it reads as NULL
// (unknown), not 0.
func (m *EvalMetrics) UpgradeFrom(version int) {
	if version < 3 {
		m.Scope = ScopeType
		if m.TaskType == "all" {
			m.Scope, m.TaskType = ScopeAll, ""
		}
	}
	if version < 4 && m.ReadsPerEp == 0 {
		m.RightReadRate, m.MisleadingRate = nil, nil
	}
	if version < 5 && m.Episodes == 0 {
		m.MisleadingExposure = nil
	}
}

// UpgradeFrom reads a trajectory of an older version: scaffold version -1
// (no scaffold; version 6 or older) becomes NULL, and so do the sampling
// columns of a policy that is not a checkpoint (no policy hash; 0 in
// versions 5 to 7).
func (r *Trajectory) UpgradeFrom(version int) {
	if version < 7 && r.ScaffoldVersion != nil && *r.ScaffoldVersion == -1 {
		r.ScaffoldVersion = nil
	}
	if version < 8 && r.PolicyHash == "" {
		r.Temperature, r.TopP, r.TopK, r.RepetitionPenalty = nil, nil, nil, nil
	}
}
