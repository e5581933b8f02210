print("daemon benchmark: not written yet")
