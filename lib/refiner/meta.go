package refiner

// Metadata keys of the control command's outputs (table.Meta.Extra), beside
// the iteration and scaffold keys it shares with validate
// (scaffold.MetaIteration, scaffold.MetaScaffold, scaffold.MetaScaffoldVersion).
const (
	MetaRefiner      = "refiner" // the refiner's name
	MetaReasonPrefix = "reason." // "reason.<scope>": why a scope got no proposal (scope "general" for the general layer)
)
