package htp

// ConfigXML exposes configXML to the package's external tests.
var ConfigXML = configXML
