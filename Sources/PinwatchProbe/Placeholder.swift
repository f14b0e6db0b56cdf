internal import COpenSSL
func _opensslLinked() -> UInt { OpenSSL_version_num() }
