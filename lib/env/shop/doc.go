// Package shop is a WebShop-like environment: a text web shop where the agent
// searches a generated catalogue, opens products, selects options and buys.
// It registers itself as "shop" (import it for the side effect).
//
// # Catalogue and goals
//
// The catalogue (NumProducts = 1,200 products) and every goal are generated
// deterministically from fixed seeds with a splitmix64 generator (internal/splitmix), so
// the data never changes between runs, machines or Go releases. Products
// belong to one of WebShop's five categories (beauty, electronics, fashion,
// food, furniture: the task types), each with eight product types, an
// attribute pool ("water resistant", "gluten free", ...) and two option
// dimensions (size, color, flavor, ...). A product has 3-5 attributes, 2 or
// more values per option dimension, a title "<brand> <attribute> <type>",
// an id "b-NN-NN" and a price in cents.
//
// A goal is drawn from one product (which is therefore a perfect match):
// 1-3 of its attributes, one offered value per option dimension and a price
// limit in whole dollars above its price, rendered as e.g.
//
//	i am looking for a water resistant and breathable jacket, in black,
//	size large, and price lower than 50.00 dollars
//
// Every candidate goal is played by the oracle during generation and kept
// only if the oracle scores 1 within the budget (Env.Rejected counts the few
// dropped), so "the oracle solves every task" holds by construction and is
// re-checked by the tests through the public interface.
//
// # Splits
//
// train (3,000), valid_seen (200), valid_unseen (200) and test (500, like
// WebShop's test set). A goal's defining combination is "<product
// type>|<first attribute>" (DefiningCombination). One attribute per product
// type is held out: train, valid_seen and test goals never name a held-out
// (type, attribute) pair anywhere; valid_unseen goals lead with one. No goal
// text occurs in two splits. Task ids are "shop/<split>/<5-digit index>".
//
// # Pages and actions
//
// Actions are search[query] (only on the search page) and click[x]. Pages:
//
//   - search page: "instruction: <goal> [search]";
//   - results page: BM25 ranking (internal/textindex: k1 1.2, b 0.75, stop words dropped, ties
//     to the lower catalogue index) over title, attributes, option values
//     and category; at most 50 results, 10 a page: "[back to search] page 1
//     (total 50) [next >] [b-07-42] acme water resistant jacket | $45.99 ...".
//     click[<id>] (or the exact title) opens a result of the current page;
//     click[next >], click[< prev] page, click[back to search] restarts;
//   - item page: "[back to search] [< prev] <title> | $45.99 | color: [black]
//     [navy] | size: [small] [large] | attributes: a, b, c | selected: black |
//     [buy now]". click[<option value>] selects it (replacing the value of the
//     same dimension), click[< prev] returns to the results page,
//     click[buy now] ends the episode.
//
// An action that does not parse or does not apply on the current page is
// invalid: the observation is "invalid action. " plus the unchanged page.
// Every action uses one of the MaxSteps = 15 steps; the episode ends on buy
// (reward = score) or when the budget runs out (reward 0).
//
// # Score
//
// Score follows WebShop: (matched attributes + matched options + [price <
// limit]) / (attributes + options + 1), times a type factor: 1 for the
// goal's product type, 0.5 for another type of the same category, 0.1 for a
// product of another category whose title shares a word with the goal's type
// (a coffee table for coffee), 0 otherwise. Success means score 1.
//
// # Features
//
// Sorted and deduplicated: action:{search,click_result,click_option,
// next_page,prev,back_to_search,buy}; query:{type,no_type,attribute,option,
// category} (what a search named); milestone:found_product (opened a product
// that can score 1), milestone:selected_options (then selected every
// required option); failure:{wrong_type,missing_attribute,missing_option,
// over_price,max_steps,invalid_action,loop}. A loop is an action repeated
// from an identical observation.
//
// # Oracle and admissible actions
//
// The oracle reads only the instruction (with the domain's fixed word
// lists) and the observations: it searches for the required attributes, type
// and option values, opens results whose title names the type and whose price
// is under the limit in rank order (paging on), checks attributes and options
// on the item page, goes back if they do not fit, selects the options and
// buys. On the search page Admissible offers four queries built from the
// instruction (key words; type; attributes and type; category), so a uniform
// random agent chooses from a finite set.
//
// # Vocabulary
//
// Vocabulary lists every lower-case word (letters/digits runs; every other
// non-space character is its own token) that goals, observations and
// admissible actions contain: about 470 words.
package shop
