print("gbnotifyctl")
