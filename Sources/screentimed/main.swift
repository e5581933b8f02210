print("screentimed")
