print("engine benchmark: not written yet")
