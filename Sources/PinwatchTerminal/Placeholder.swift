internal import CNCurses
func _cursesLinked() -> Int32 { pinwatch_COLOR_PAIR(1) }
