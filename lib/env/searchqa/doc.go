// Package searchqa is a Search-R1-like environment: the agent answers a
// single- or multi-hop question by searching a local corpus and then giving
// an answer that is scored by exact match. It registers itself as
// "searchqa" (import it for the side effect).
//
// # World and corpus
//
// A generated world (fixed seeds, the splitmix64 generator of internal/splitmix, so it
// never changes) holds 3,400 people, 1,000 companies, 640 cities, 40
// countries, 200 universities and 30 rivers. Every name is built from fixed
// lists of name parts ("ada" + "voss", "port" + "marlow", "zen"+"tra" +
// "corp"), which keeps the vocabulary near 900 words. Twelve functional
// relations link them: born_in, studied_at, works_for (person); founded_by,
// has_ceo, headquartered_in (company); located_in, crossed_by, has_mayor
// (city); has_capital (country, always one of its own cities); campus_in
// (university); rises_in (river). The corpus has 10,350 passages: two per
// person, company and city, one per country, university and river; each
// fact is stated exactly once, by one fixed sentence in a passage about its
// subject ("zentra corp was founded by ada voss in 1987."), and passages
// add distractor details (years, hobbies, populations).
//
// # Questions and splits
//
// A question applies a chain of 1-3 relations to a start entity, never
// revisiting an entity; the task types are single_hop, two_hop and
// three_hop (a third of each split). Inner hops become noun-phrase prefixes,
// the last hop the question form: "in which city was the founder of the
// employer of ada voss born?". The answer is the last entity's name.
//
// A question's defining combination is "<start entity>|<relation chain>"
// (DefiningCombination), e.g. "ada voss|works_for>founded_by>born_in".
// 15% of the entities are reserved: valid_unseen questions start only from
// them, train, valid_seen and test questions never do, so no valid_unseen
// combination (nor start entity) occurs in train. No combination occurs
// twice anywhere, so no question repeats across splits. Sizes: train 3,000,
// valid_seen 200, valid_unseen 200, test 500; ids "searchqa/<split>/NNNNN".
//
// Every candidate question is played by the oracle during generation and
// kept only if it is answered (Env.Rejected counts drops; currently none).
//
// # Actions and scoring
//
// search[query] returns the top TopK = 3 passages by BM25 (internal/textindex: k1 1.2, b 0.75,
// stop words dropped, repeated query words counted once, ties to the lower
// passage index) as "[1] ... [2] ... [3] ...". answer[text] ends the
// episode: reward and score 1 when Normalize(text) == Normalize(answer)
// (lower case, punctuation deleted, articles a/an/the dropped, whitespace
// collapsed), else 0. At most MaxSearches = 4 searches: a fifth search ends
// the episode with score 0 (invalid, failure:search_budget). MaxSteps = 5
// (4 searches + 1 answer); any unparseable action is invalid and uses a
// step; when the budget runs out without an answer the score is 0.
//
// Admissible, for a uniform random agent, offers a search for the question
// text, searches for up to three entities named by the last passages, and
// answers naming up to eight entities seen in retrieved passages (most
// recent first). Any search or answer text is accepted by Step.
//
// # Features
//
// Sorted and deduplicated: hops:N; action:{search,answer};
// query:{entity,relation} (a search named a chain entity other than the
// answer / a chain relation's keyword); milestone:found_bridge (a retrieved
// passage states an inner hop), milestone:found_answer (one states the last
// hop); failure:{wrong_answer,answered_bridge (answered the start or a
// bridge entity),no_answer,max_steps,search_budget,invalid_action,loop (the
// same normalised query twice)}.
//
// # Oracle
//
// The oracle reads only the question and the passages: it parses the
// question with the fixed templates into start entity and chain, searches
// "<entity> <relation keyword>" per hop, reads the stating sentence in the
// returned passages to get the next entity, and answers after the last hop
// (1 search per hop, so 2, 3 and 4 steps).
package searchqa
