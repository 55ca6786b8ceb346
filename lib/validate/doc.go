// Package validate is the PATS validator: the only place the scaffold
// changes. It checks each refiner proposal against deterministic rules and
// applies the accepted ones, in a fixed order, to produce the next snapshot.
//
// Order: proposals are applied sorted by proposal_id (byte order; ties keep
// input order); each is checked against the snapshot as left by the
// proposals accepted before it. A rejected proposal is a no-op with a
// recorded reason. With no accepted proposal the next snapshot has the same
// items (the command still advances the version).
//
// Scopes: a proposal's task type names its scope: a task type (its task and
// mistake items) or "" (the general layer). Caps and the primitive's
// direction are measured per scope.
//
// Rules, checked in this order; the first broken one is the decision's
// reason code:
//
//	bad_id          proposal_id empty or repeated
//	primitive       primitive not EXPAND, REVISE, COMPRESS or FORCED_PRUNE
//	bad_op          op not add, edit, merge or delete
//	direction       op not allowed under the primitive: EXPAND adds only;
//	                REVISE edits or merges; COMPRESS edits, merges or
//	                deletes; FORCED_PRUNE deletes only
//	layer           unknown layer, or a layer outside the proposal's scope
//	                (general <=> task type "")
//	targets         wrong number of targets (add none, edit and delete one,
//	                merge two or more) or a target repeated
//	no_target       a target is not in the snapshot
//	target_scope    a target belongs to another scope than the proposal
//	empty_text      add, edit or merge without text
//	control_char    text with a control character (newline, tab, ...)
//	too_long        text over MaxItemTokens tokens
//	duplicate       text equal (normalized) to another item of the scope or
//	                of the general layer (shown beside every type's items)
//	support_unknown an add's supporting card is not among the cards
//	support_type    an add's supporting card is of another task type
//	                (any type supports a general item)
//	support_count   an add with fewer than MinSupport distinct cards
//	quota           an EXPAND add beyond ExpandQuota for its scope
//	grows_items     REVISE or COMPRESS would increase the scope's items
//	grows_tokens    COMPRESS would increase the scope's tokens
//	cap_items       the scope would exceed its item cap (and grow)
//	cap_tokens      the scope would exceed its token cap (and grow)
//	no_change       an edit that changes nothing
//
// A cap is only enforced against growth: a snapshot already over a cap
// (e.g. a large seeded library) can still shrink through it.
//
// Applying: add creates an item with a content-derived id
// (scaffold.NewID), Created = Updated = Options.Iteration and the
// proposal's support; edit keeps the id and Created, replaces text (and
// layer, when given, within the scope) and support (when given); merge
// replaces its targets by one item that keeps the first target's id and the
// earliest Created, with the proposal's text and the union of the targets'
// and proposal's supports; delete removes its target. Tokens is always
// Count(text).
package validate
