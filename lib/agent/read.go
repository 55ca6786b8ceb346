package agent

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/words"
)

// ReadSpan is the one rule by which an action is read as a skill read:
// rollout records and answers the reads it finds (agent.ParseRead), the
// formats give the policy-written tokens over the name their role
// (AnswerRoles), and learn and the audits credit what rollout recorded.
//
// After leading white space, the action's first word (a run of word
// characters, words.IsWordRune) is the read verb in any case; then either
// nothing follows but white space (a read with an empty name), or white
// space or nothing and a word character start the name. The name is the
// rest of the action without its surrounding white space, as written:
// extra words and inner white space stay (read_skill sinkbasin 2 fill
// names "sinkbasin 2 fill", a name no slate holds). A verb followed by a
// character that is not a word character ("read_skill. ladle 1",
// "read_skill-x") is no read: the action goes to the environment.
//
// The rule is the same on an answer's text and on the text its word-level
// tokens decode to (the built-in tokenizer lower-cases, cuts every
// non-word character into a token of its own and Decode only moves white
// space around those), so rollout's reads and the tokens' roles agree.
// span is the name's byte span in action (empty, at the verb's end, for
// an empty name).
func ReadSpan(action string) (span [2]int, ok bool) {
	i := len(action) - len(strings.TrimLeftFunc(action, unicode.IsSpace))
	j := i
	for j < len(action) {
		r, n := utf8.DecodeRuneInString(action[j:])
		if !words.IsWordRune(r) {
			break
		}
		j += n
	}
	if !strings.EqualFold(action[i:j], ReadVerb) {
		return span, false
	}
	rest := strings.TrimRightFunc(action[j:], unicode.IsSpace)
	k := len(rest) - len(strings.TrimLeftFunc(rest, unicode.IsSpace))
	if k == len(rest) {
		return [2]int{j, j}, true
	}
	if r, _ := utf8.DecodeRuneInString(rest[k:]); !words.IsWordRune(r) {
		return span, false
	}
	return [2]int{j + k, j + len(rest)}, true
}

// ParseRead reports whether action reads a skill (ReadSpan), and the name
// as written.
func ParseRead(action string) (name string, ok bool) {
	span, ok := ReadSpan(action)
	return action[span[0]:span[1]], ok
}

// RecordedReadRoles returns roles (an episode's, as rollout wrote them)
// with role skill_name kept only on the answers rollout recorded as reads:
// readTurns holds the answer (turn) of each of the episode's reads
// (trajectory column read_turns; a turn is a maximal run of policy-written
// tokens, numbered from 0). Any other skill_name token becomes an
// execution token (RoleAction), so that only a recorded read's name gets
// the selection channel. Without a turn for every read (a file older than
// read_turns: nreads != len(readTurns)) roles come back as they are. The
// result is a new slice only when a role changed.
func RecordedReadRoles(roles []int8, readTurns []int32, nreads int) []int8 {
	if nreads != len(readTurns) {
		return roles
	}
	read := map[int]bool{}
	for _, t := range readTurns {
		read[int(t)] = true
	}
	out, copied := roles, false
	turn, prev := -1, false
	for i, r := range roles {
		on := table.PolicyWritten(r)
		if on && !prev {
			turn++
		}
		prev = on
		if r != table.RoleSkillName || read[turn] {
			continue
		}
		if !copied {
			out, copied = append([]int8(nil), roles...), true
		}
		out[i] = table.RoleAction
	}
	return out
}
