package command

import (
	"reflect"
	"strings"

	"github.com/urfave/cli/v2"
)

// requireFlags takes over the check of the flags a command declares
// required (Required: true): urfave/cli's own check prints the help to
// stdout and fails with exit 1; this one is a usage error of one line
// (exit 2) naming the flags as users type them ("-o is required",
// "--variants and --seeds are required"), made before the command's
// action runs.
func requireFlags(app *cli.App) {
	if app.Action != nil {
		app.Action = required(app.Flags, app.Action)
	}
	var sub func(cmds []*cli.Command)
	sub = func(cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Action != nil {
				c.Action = required(c.Flags, c.Action)
			}
			sub(c.Subcommands)
		}
	}
	sub(app.Commands)
}

// required returns action preceded by the check of flags' required ones,
// whose Required field it clears so that urfave/cli does not check them.
func required(flags []cli.Flag, action cli.ActionFunc) cli.ActionFunc {
	type need struct{ name, shown string }
	var needs []need
	for _, f := range flags {
		r, ok := f.(cli.RequiredFlag)
		if !ok || !r.IsRequired() {
			continue
		}
		v := reflect.ValueOf(f)
		if v.Kind() != reflect.Pointer || !v.Elem().FieldByName("Required").CanSet() {
			continue // left to urfave/cli
		}
		v.Elem().FieldByName("Required").SetBool(false)
		names := f.Names()
		shown := "--" + names[0]
		for _, n := range names[1:] {
			if len(n) == 1 {
				shown = "-" + n
			}
		}
		needs = append(needs, need{names[0], shown})
	}
	if len(needs) == 0 {
		return action
	}
	return func(c *cli.Context) error {
		var missing []string
		for _, n := range needs {
			if !c.IsSet(n.name) {
				missing = append(missing, n.shown)
			}
		}
		switch len(missing) {
		case 0:
			return action(c)
		case 1:
			return Usagef("%s is required", missing[0])
		}
		return Usagef("%s and %s are required", strings.Join(missing[:len(missing)-1], ", "), missing[len(missing)-1])
	}
}
