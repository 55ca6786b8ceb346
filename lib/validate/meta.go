package validate

// Metadata keys of the decision files (table.Meta.Extra), beside the
// iteration and scaffold keys validate shares with control
// (scaffold.MetaIteration, scaffold.MetaScaffold, scaffold.MetaScaffoldVersion).
const (
	MetaAccepted = "accepted" // decisions: accepted proposals
	MetaRejected = "rejected" // decisions: rejected proposals
)
