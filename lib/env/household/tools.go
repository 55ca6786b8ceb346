package household

import (
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/toolcall"
)

// placeDesc and objectDesc describe the arguments that name things.
const (
	placeDesc  = "a receptacle or place with its number, as the observation names it, e.g. fridge 1"
	objectDesc = "an object with its number, as the observation names it, e.g. apple 1"
)

// tools are household's verbs as tools, each standing for one command of
// the grammar.
var tools = []toolcall.Tool{
	{Name: "go_to", Description: "Go to a place.", Action: "go to {place}", Parameters: env.Param("place", placeDesc)},
	{Name: "open", Description: "Open a receptacle.", Action: "open {place}", Parameters: env.Param("place", placeDesc)},
	{Name: "close", Description: "Close a receptacle.", Action: "close {place}", Parameters: env.Param("place", placeDesc)},
	{Name: "take", Description: "Take an object from a place.", Action: "take {object} from {place}", Parameters: env.Param("object", objectDesc, "place", placeDesc)},
	{Name: "put", Description: "Put the object you hold in or on a place.", Action: "put {object} in/on {place}", Parameters: env.Param("object", objectDesc, "place", placeDesc)},
	{Name: "heat", Description: "Heat the object you hold with an appliance.", Action: "heat {object} with {appliance}", Parameters: env.Param("object", objectDesc, "appliance", "the appliance, e.g. microwave 1")},
	{Name: "cool", Description: "Cool the object you hold with an appliance.", Action: "cool {object} with {appliance}", Parameters: env.Param("object", objectDesc, "appliance", "the appliance, e.g. fridge 1")},
	{Name: "clean", Description: "Clean the object you hold with an appliance.", Action: "clean {object} with {appliance}", Parameters: env.Param("object", objectDesc, "appliance", "the appliance, e.g. sinkbasin 1")},
	{Name: "use", Description: "Use an object, e.g. switch on a desklamp.", Action: "use {object}", Parameters: env.Param("object", objectDesc)},
	{Name: "examine", Description: "Look closely at an object or a place.", Action: "examine {target}", Parameters: env.Param("target", "an object or place with its number")},
	{Name: "look", Description: "Look around the place you are at.", Action: "look"},
	{Name: "inventory", Description: "List what you hold.", Action: "inventory"},
}

// Tools implements env.ToolDeclarer.
func (household) Tools() []toolcall.Tool { return append([]toolcall.Tool(nil), tools...) }
