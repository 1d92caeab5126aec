package customer

// Word lists for names, places and the like. They play the part of faker's
// locale data in the document template: what matters for a benchmark is the
// shape and size of the values, so each list is a modest set of ordinary
// words.

// Countries is the data generator's 30-country list (the template's
// Short_country_list); address.country is drawn uniformly from it.
var Countries = []string{
	"Belgium", "France", "Germany", "Italy", "Luxembourg", "Netherlands", "Denmark", "Ireland",
	"United Kingdom", "Greece", "Portugal", "Spain", "Austria", "Finland", "Sweden", "Cyprus",
	"Czech Republic", "United States", "Canada", "Estonia", "Hungary", "Latvia", "Lithuania", "Malta",
	"Poland", "Slovakia", "Slovenia", "Bulgaria", "Romania", "Croatia",
}

var firstNames = []string{
	"Aaliyah", "Abigail", "Adrian", "Alberto", "Alejandra", "Alexander", "Alice", "Amelia",
	"Andrew", "Angelina", "Anthony", "Arturo", "Beatrice", "Benjamin", "Brandon", "Caroline",
	"Catherine", "Charlotte", "Christopher", "Claudia", "Daniel", "Deborah", "Dominic", "Eleanor",
	"Elizabeth", "Emmanuel", "Evelyn", "Frederick", "Gabriella", "Genevieve", "Gregory", "Harrison",
	"Henrietta", "Isabella", "Jacqueline", "Jonathan", "Josephine", "Katherine", "Lawrence", "Leonardo",
	"Madeline", "Margaret", "Maximilian", "Nathaniel", "Nicholas", "Olivia", "Patricia", "Penelope",
	"Rosalind", "Sebastian", "Stephanie", "Theodore", "Valentina", "Victoria", "Wilhelmina", "Zachary",
}

var lastNames = []string{
	"Abernathy", "Anderson", "Bartoletti", "Beckenbauer", "Blanchard", "Christiansen", "Considine", "Dickinson",
	"Eichmann", "Fitzgerald", "Gottlieb", "Greenfelder", "Halvorson", "Hernandez", "Jakubowski", "Kertzmann",
	"Kovalenko", "Lindgren", "MacGyver", "Marquardt", "McLaughlin", "Nikolaus", "Oberbrunner", "Ortega",
	"Pfannerstill", "Quigley", "Rosenbaum", "Runolfsdottir", "Schowalter", "Stoltenberg", "Thompson", "Vandervort",
	"Wintheiser", "Wolfswinkel", "Yundt", "Zboncak",
}

var streetSuffixes = []string{
	"Alley", "Avenue", "Boulevard", "Branch", "Bridge", "Brook", "Causeway", "Circle", "Common",
	"Corner", "Course", "Crescent", "Crossing", "Drive", "Expressway", "Freeway", "Gardens", "Harbor",
	"Heights", "Highway", "Junction", "Lane", "Meadows", "Parkway", "Plaza", "Ridge", "Road", "Square",
	"Street", "Terrace", "Turnpike", "Valley", "Viaduct", "Way",
}

var cityPrefixes = []string{"North", "East", "West", "South", "New", "Lake", "Port", "Fort", "Saint", "Mount"}

var citySuffixes = []string{
	"town", "ton", "land", "ville", "berg", "burgh", "borough", "bury", "view", "port", "mouth",
	"stad", "furt", "chester", "fort", "haven", "side", "shire", "field", "ford",
}

var emailDomains = []string{"gmail.com", "yahoo.com", "hotmail.com", "outlook.com", "mail.com", "example.org"}

var urlSites = []string{
	"twitter", "facebook", "flixter", "instagram", "last", "linkedin", "xing", "google", "snapchat",
	"tumblr", "pinterest", "youtube", "vine", "whatsapp",
}

var urlDomains = []string{"com", "org", "net", "int", "edu", "gov", "mil", "us", "uk", "ft", "it", "de"}

var activities = []string{
	"museum", "architecture", "shopping", "food", "show", "exibition", "theatre", "education", "business",
	"dating", "nightlife", "water park", "amusement park", "scenic", "camping", "sport", "health",
	"fashion", "family", "other",
}

var ageGroups = []string{"child", "teen", "adult", "senior"}

// ageRanges are the inclusive age bounds of each age group.
var ageRanges = [][2]int{{1, 12}, {13, 19}, {18, 65}, {65, 100}}

var phoneCountries = []string{"us", "uk", "fr"}

// weightedScoreWeights are the template's weights of the tens digit of
// weighted_score (0..9).
var weightedScoreWeights = []float64{1, 0.4, 0.3, 0.25, 0.2, 0.17, 0.13, 0.11, 0.1, 0.09}

var urlProtocols = []string{"http", "https"}

var genders = []string{"M", "F"}

var noteWords = []string{
	"customer", "prefers", "email", "contact", "weekday", "evenings", "loyalty", "member", "since",
	"requested", "catalogue", "delivery", "address", "updated", "recently", "asked", "about", "returns",
	"policy", "discount", "applied", "previous", "order", "payment", "card", "renewed", "subscription",
	"newsletter", "store", "visit", "support", "ticket", "closed", "resolved", "follow", "up", "next",
	"quarter", "interested", "in", "travel", "offers", "family", "plan", "gift", "wrapping", "and",
	"the", "with", "for", "to", "of", "a",
}
