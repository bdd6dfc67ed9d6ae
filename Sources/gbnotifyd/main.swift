print("gbnotifyd")
