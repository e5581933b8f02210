print("collector benchmark: not written yet")
