package command

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed moves flags that follow positional arguments in front of
// them, so that `cards traj.parquet -o cards.parquet` works as users write
// it (urfave/cli stops reading flags at the first positional argument).
// "-" alone is a positional argument (stdin); "--" ends the flags.
func interspersed(flags []cli.Flag, args []string) []string {
	takesValue := map[string]bool{}
	for _, f := range flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var lead, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if a == "-" || !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
			continue
		}
		lead = append(lead, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if takesValue[name] && i+1 < len(args) {
			lead = append(lead, args[i+1])
			i++
		}
	}
	if len(pos) > 0 {
		lead = append(lead, "--")
	}
	return append(lead, pos...)
}

// reorder applies interspersed to the arguments of the app, or of its
// subcommand when it has subcommands.
func reorder(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	rest := args[1:]
	flags := app.Flags
	if len(app.Commands) > 0 {
		if rest[0] == "help" || strings.HasPrefix(rest[0], "-") {
			return args
		}
		for _, c := range app.Commands {
			if c.HasName(rest[0]) {
				out = append(out, rest[0])
				rest = rest[1:]
				flags = c.Flags
				break
			}
		}
	}
	return append(out, interspersed(flags, rest)...)
}
