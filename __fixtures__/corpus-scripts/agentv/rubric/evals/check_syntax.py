# Stand-in: the candidate's Python code block must compile.
import json, sys

payload = json.load(sys.stdin)
answer = payload.get("candidate_answer", "")
code = answer.split("```python")[1].split("```")[0] if "```python" in answer else answer
try:
    compile(code, "<candidate>", "exec")
    print(json.dumps({"score": 1.0, "hits": ["code compiles"], "misses": [], "reasoning": "valid syntax"}))
except SyntaxError as err:
    print(json.dumps({"score": 0.0, "hits": [], "misses": ["syntax error: %s" % err.msg], "reasoning": str(err)}))
