# get_assert(output, context): a dict from the answer and the test's vars.
def get_assert(output, context):
    named = context["vars"]["order"] in output
    return {"pass": named, "score": 1.0 if named else 0.0, "reason": "order named" if named else "order missing"}


# A named function (file://checks/reply.py:polite): a number, the share of courtesy words found.
def polite(output, context):
    words = ("thanks", "please")
    return sum(w in output.lower() for w in words) / len(words)
