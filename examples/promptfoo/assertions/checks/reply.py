# A python assertion file: get_assert(output, context) returns a bool, a number or a dict.
def get_assert(output, context):
    polite = any(w in output.lower() for w in ("thanks", "thank you", "happy to help"))
    return {"pass": polite, "score": 1.0 if polite else 0.0, "reason": "polite" if polite else "no courtesy"}
