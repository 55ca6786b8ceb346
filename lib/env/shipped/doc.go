// Package shipped registers the environments shipped with pats
// (household, household-rl, shop, searchqa) with lib/env: import it (for
// its side effect, or for Names) where env.Open must know them. It sits
// beside the environments and imports nothing else; nothing below the
// stage layer needs it.
package shipped
