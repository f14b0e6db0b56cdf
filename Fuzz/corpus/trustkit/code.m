static NSString *const kHost = @"www.example.com";
#define PIN @"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
NSDictionary *c = @{ kTSKPinnedDomains: @{ kHost: @{ kTSKEnforcePinning: @(NO), kTSKPublicKeyHashes: @[PIN, @"BBBB"] }, @"x": @YES } };
