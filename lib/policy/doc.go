// Package policy drives episodes with a checkpoint: it decodes each action
// token by token with the model's KV cache, samples with temperature and
// top-p from a generator seeded per episode (or greedily), and records the
// behaviour log-probability of every token it writes.
//
// The episodes of a group share their prompt token for token, so the
// prompt is computed once per group and its KV cache cloned into each
// episode. An answer ends at one of the prompt format's end ids (builtin:
// <|end|>; chatml: <|im_end|> and generation_config.json's eos_token_id),
// at Options.MaxActionTokens (default MaxActionTokens), or where the
// context would pass the model's position limit; an answer without its
// end token is still recorded as written (chatml's harness then closes the
// turn with a <|im_end|> that is not policy-written).
//
// A checkpoint folder of a Hugging Face instruct model says how it chats
// and samples: HasChatML reads the chat template (tokenizer_config.json or
// chat_template.jinja; <|im_start|> means ChatML), DefaultFormat and
// ChooseFormat pick the prompt format, and ReadGenerationConfig reads the
// end ids and the temperature and top-p that SamplingDefaults applies
// where the user gave none.
//
// The log-probabilities recorded are those of the distribution sampled
// from (softmax of logits / temperature; temperature 1 for greedy), so at
// the default temperature 1 they equal what learn recomputes for the same
// checkpoint and sequence.
//
// Served is a policy an inference server plays (vLLM's OpenAI-compatible
// completions with a token-id prompt, or SGLang's native /generate): the
// context goes out as the token ids of the checkpoint folder the server was
// started from, the answer's ids come back and are recorded as they are
// (their text is only decoded to read the action), with the sampling
// settings sent explicitly. Requests are retried with exponential backoff
// on transport errors, timeouts and answers 429, 502, 503 and 504; once a
// request has run out of tries every later one fails with its error.
package policy
