WRONG = {"ex1_add": [("subtracts", "def add(a, b):\n    return a - b\n")]}
ALT = {"ex1_add": "def add(a, b):\n    return sum([a, b])\n"}
