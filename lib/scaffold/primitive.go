package scaffold

// The vocabulary the controller (lib/control) and the validator
// (lib/validate) share, kept here, below both, so that the checker does not
// depend on the proposer's side.

// Primitives: the controller's choice per scope, which bounds the edits a
// proposal under it may make.
const (
	Expand      = "EXPAND"
	Revise      = "REVISE"
	Compress    = "COMPRESS"
	ForcedPrune = "FORCED_PRUNE"
	None        = "NONE"
)

// Default caps of a snapshot and the default EXPAND quota.
const (
	DefaultMaxItems         = 12  // per task type (task + mistake items)
	DefaultMaxTokens        = 400 // per task type
	DefaultMaxGeneralItems  = 8   // general layer
	DefaultMaxGeneralTokens = 200 // general layer
	DefaultExpandQuota      = 3   // additions per scope per iteration
)

// Metadata keys that the control and validate commands both write into
// their outputs (table.Meta.Extra: proposals, controller state, decisions,
// snapshots). validate compares MetaScaffold of the proposals with the
// snapshot it is given, so the two commands must share these names.
const (
	MetaIteration       = "iteration"        // the cards' iteration k
	MetaScaffold        = "scaffold"         // Hash of the snapshot the proposals were made for
	MetaScaffoldVersion = "scaffold_version" // its version
)
