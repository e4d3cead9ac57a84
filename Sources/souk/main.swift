print("souk")
