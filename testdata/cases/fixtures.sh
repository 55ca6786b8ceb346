# The shared fixtures of the bad-input cases, made in $FIX with the
# binaries on PATH (cases_test.go runs this once).
rollout --env household --split train --tasks 4 --group 2 --policy oracle --seed 1 -o traj.parquet
# the same groups again (audit lift's two sides)
rollout --env household --split train --tasks 4 --group 2 --policy oracle --seed 1 -o bare.parquet
validate init -o snap.parquet
cards traj.parquet -o cards.parquet
control --cards cards.parquet --scaffold snap.parquet -o proposals.parquet --state-out state.parquet
learn sft --init tiny --traj traj.parquet -o ckpt --epochs 1
rollout --env household --split train --tasks 2 --group 2 --policy ckpt --max-context 512 -o ptraj.parquet
mkdir bad
for m in cards-nan-success cards-success-range cards-negative-count cards-contrast-mismatch cards-duplicate-id; do
  mkbad $m cards.parquet bad/$m.parquet
done
mkbad traj-nan-reward traj.parquet bad/traj-nan-reward.parquet
mkbad traj-roles-short traj.parquet bad/traj-roles-short.parquet
mkbad traj-null-reward traj.parquet bad/traj-null-reward.parquet
evaluate traj.parquet -o eval.parquet > /dev/null
# weak-policy evidence, whose controller proposes additions (8 tasks: a
# type needs two cards for an addition)
rollout --env household --split train --tasks 8 --group 2 --policy ckpt --max-context 512 -o wtraj.parquet
cards wtraj.parquet -o pcards.parquet
control --cards pcards.parquet --scaffold snap.parquet -o pproposals.parquet --state-out pstate.parquet
for m in traj-score-seven traj-iteration-before; do
  mkbad $m traj.parquet bad/$m.parquet
done
mkbad traj-stream-null-reward traj.parquet bad/traj-stream-null-reward.stream
mkbad traj-stream-null-token traj.parquet bad/traj-stream-null-token.stream
mkbad traj-file-null-reward traj.parquet bad/traj-file-null-reward.arrow
for m in cards-iteration-negative cards-schema-version-negative; do
  mkbad $m cards.parquet bad/$m.parquet
done
for m in proposals-duplicate-id proposals-unknown-primitive proposals-unknown-op proposals-iteration-negative; do
  mkbad $m pproposals.parquet bad/$m.parquet
done
mkbad state-unknown-primitive pstate.parquet bad/state-unknown-primitive.parquet
for m in eval-nan-success eval-read-rate-range; do
  mkbad $m eval.parquet bad/$m.parquet
done
mkbad snap-wrong-hash snap.parquet bad/snap-wrong-hash.parquet
# Trajectories with a scaffold, for audit scaffold.
printf 'items:\n  - layer: general\n    text: Look around before acting.\n  - layer: general\n    text: Take the object before moving it.\n' > items.yaml
validate init --from items.yaml -o isnap.parquet
rollout --env household --split train --tasks 2 --group 2 --policy ckpt --max-context 512 --scaffold isnap.parquet -o straj.parquet
# A finished run folder of one iteration, for report sweep, report plots and report tensorboard.
r=run/pats-s1
mkdir -p $r/eval/0 $r/snap $r/state
evaluate traj.parquet -o $r/eval/0/bare-valid_seen.parquet > /dev/null
cp $r/eval/0/bare-valid_seen.parquet $r/eval/0/bare-valid_unseen.parquet
cp snap.parquet $r/snap/0.parquet
cp state.parquet $r/state/0.parquet
echo finished > $r/summary.md
printf 'SEED=1\nVARIANT=pats\n' > run/vars
