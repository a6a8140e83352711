"""A Python program that never imports torch."""
import json
import os

print(json.dumps({"marker": os.environ.get("USER_SITECUSTOMIZE_RAN", "no")}))
