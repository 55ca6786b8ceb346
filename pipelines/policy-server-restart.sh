#!/bin/sh
# The default POLICY_SERVER_RESTART of pipelines/pats.mk: called as
#   policy-server-restart.sh CKPT URL MODEL
# before each iteration's rollouts through an inference server. A real hook
# restarts the server on CKPT and returns once it answers; this one says
# what that takes and fails, so that no rollout runs against a server that
# may still serve an older checkpoint.
ckpt=$1 url=$2 model=$3
# what is printed of the URL: its user and password (up to the last '@')
# are REDACTED, as the toolkit writes them
url=$(printf '%s\n' "$url" | sed 's|://.*@|://REDACTED@|')
{
	echo "policy-server-restart: the server at $url must now serve $ckpt as $model, for example:"
	echo "  vllm serve $ckpt --served-model-name $model --port PORT    (or: python -m sglang.launch_server --model-path $ckpt --port PORT)"
	echo "then wait until it answers, and rerun make; or give POLICY_SERVER_RESTART=your-script (called as: your-script CKPT URL MODEL) to do it each iteration"
} >&2
exit 1
