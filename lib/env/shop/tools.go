package shop

import (
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/toolcall"
)

// Tools implements env.ToolDeclarer: search[...] and click[...].
func (e *Env) Tools() []toolcall.Tool {
	return []toolcall.Tool{
		{Name: "search", Description: "Search the shop for products (on the search page).", Action: "search[{query}]",
			Parameters: env.Param("query", "the words to search for")},
		{Name: "click", Description: "Click a button or link of the page: a product id, an option, " + clickBuy + ", " + clickNext + ", " + clickPrev + " or " + clickSearch + ".",
			Action: "click[{target}]", Parameters: env.Param("target", "the text of what to click, as the page shows it")},
	}
}
