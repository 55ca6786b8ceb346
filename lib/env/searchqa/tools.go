package searchqa

import (
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/toolcall"
)

// Tools implements env.ToolDeclarer: search[...] and answer[...].
func (e *Env) Tools() []toolcall.Tool {
	return []toolcall.Tool{
		{Name: "search", Description: "Search the corpus: the top passages come back.", Action: "search[{query}]",
			Parameters: env.Param("query", "the words to search for")},
		{Name: "answer", Description: "Give the final answer; the episode ends.", Action: "answer[{answer}]",
			Parameters: env.Param("answer", "the answer, a name as the passages write it")},
	}
}
