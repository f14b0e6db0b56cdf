print("pinwatch")
