package shipped

import (
	_ "github.com/pats-rl/pats/lib/env/household" // registers household and household-rl
	_ "github.com/pats-rl/pats/lib/env/searchqa"  // registers searchqa
	_ "github.com/pats-rl/pats/lib/env/shop"      // registers shop
)

// Names lists the shipped environments.
var Names = []string{"household", "household-rl", "shop", "searchqa"}
