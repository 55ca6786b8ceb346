package searchqa

// Fixed name parts. Every entity name is built from these lists, so the
// vocabulary stays small however many entities there are. No part is an
// article or a template word, and the lists share no words.

var firstNames = []string{
	"ada", "bruno", "carla", "dario", "elena", "felix", "greta", "hugo",
	"ines", "jonas", "karla", "leon", "mira", "nico", "olga", "pablo",
	"rosa", "sven", "tara", "umar", "vera", "walt", "xenia", "yara",
	"zeno", "alma", "boris", "cleo", "dmitri", "edda", "fritz", "gina",
	"hans", "ida", "jules", "kai", "lena", "marco", "nadia", "otto",
	"petra", "quinn", "rolf", "sofia", "timo", "ulla", "vito", "wanda",
	"yusuf", "zora", "anton", "bea", "cyril", "dora", "emil", "flora",
	"gustav", "hanna", "igor", "jana", "kurt", "lara", "milo", "nora",
}

var lastNames = []string{
	"voss", "kern", "adler", "brandt", "castell", "dorn", "eckert", "falk",
	"gruber", "haas", "ilves", "jansen", "kober", "lindqvist", "moser", "nagel",
	"ortiz", "pohl", "quast", "reiter", "stark", "thiel", "ulrich", "vogel",
	"weber", "yilmaz", "zander", "albers", "berger", "conti", "delgado", "ebert",
	"fuchs", "garnier", "holm", "ivanov", "jaeger", "kraus", "lange", "marin",
	"novak", "olsen", "pereira", "rossi", "sauer", "teller", "urbano", "varga",
	"wolff", "zeller", "abbott", "bauer", "carver", "duval", "engel", "frey",
	"gallo", "hartman", "iqbal", "jovic", "kessler", "lorenz", "meyer", "nilsen",
}

var cityPrefixes = []string{
	"port", "new", "north", "south", "east", "west", "lake", "fort",
	"mount", "glen", "upper", "lower", "old", "saint", "cape", "bay",
}

var cityRoots = []string{
	"marlow", "ashby", "crestfield", "dunmore", "elkridge", "fairhaven", "granby", "holloway",
	"ivydale", "kestrel", "linwood", "millbrook", "norwood", "oakhurst", "pemberton", "quarrydale",
	"redcliff", "stonebridge", "thornbury", "underhill", "valewood", "westmere", "yarrow", "zennor",
	"amberly", "blackmoor", "coldwater", "deepdale", "eastwick", "foxley", "greystone", "hartwell",
	"ironside", "juniper", "kingsley", "larkspur", "moorfield", "northcote", "oldham", "pinehurst",
}

var countryNames = []string{
	"aldovia", "belmoria", "corvania", "dravonia", "estoria", "falmira", "galdonia", "halvaria",
	"istrania", "jorvenia", "kaldaria", "lunessa", "mordavia", "norvania", "ostrelia", "pelloria",
	"quenaria", "rostavia", "selvania", "torvalia", "ulmaria", "velmora", "wendaria", "xandria",
	"yselvia", "zortania", "arvelle", "brenmark", "caspira", "delmont", "eskaria", "fendora",
	"grallia", "hesperin", "ivoria", "jastrel", "korvath", "lindara", "mirovia", "nestoria",
}

// Company and university stems are syllable pairs ("zen"+"tra").
var stemHeads = []string{"zen", "orb", "nex", "vel", "quan", "lum", "kor", "ax", "bri", "cir"}
var stemTails = []string{"tra", "is", "ova", "ton", "ix", "eon", "ara", "elo", "umi"}

var companySuffixes = []string{
	"corp", "labs", "systems", "industries", "group", "works",
	"holdings", "motors", "foods", "media", "energy", "logistics",
}

var universityKinds = []string{"university", "institute", "college", "academy"}

var riverRoots = []string{
	"amber", "silver", "willow", "raven", "copper", "falcon", "misty", "golden",
	"crystal", "thunder", "swift", "hollow", "emerald", "shadow", "broad", "winding",
	"cedar", "heron", "salmon", "otter", "granite", "azure", "crimson", "frost",
	"pebble", "reed", "serpent", "sunset", "timber", "velvet",
}

var jobs = []string{
	"engineer", "teacher", "painter", "chemist", "lawyer", "architect",
	"pilot", "surgeon", "composer", "novelist", "economist", "farmer",
}

var hobbies = []string{
	"chess", "sailing", "painting", "hiking", "cooking", "tennis",
	"gardening", "photography", "fishing", "climbing",
}

var goods = []string{
	"software", "bicycles", "furniture", "chemicals", "textiles", "ships",
	"toys", "medicines", "robots", "satellites", "glassware", "batteries",
}
