# Stand-in: scores the share of required Python keywords present in the candidate's code.
import json, sys

payload = json.load(sys.stdin)
code = payload.get("candidate_answer", "")
wanted = ["def", "return"]
hits = [k for k in wanted if k in code.split()]
misses = [k for k in wanted if k not in hits]
print(json.dumps({
    "score": len(hits) / len(wanted),
    "hits": ["uses '%s'" % k for k in hits],
    "misses": ["missing '%s'" % k for k in misses],
    "reasoning": "%d of %d keywords present" % (len(hits), len(wanted)),
}))
