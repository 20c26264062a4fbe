package main

import (
	"regexp"

	"github.com/calendard/calendard/storage"
)

// vocab is what the generated text of one language is made of. Every word is a real word of the
// language, spelled with its accents, so that the language analyzers of the search index see what they
// would see in production (stemming, elision, folding) and searches for those words find something.
//
// Templates take these placeholders: {K} an event kind, {T} and {T2} two different themes, {M} a
// season or moment, {C} the city, {IN} "in <city>" in the language's own grammar, {V} the venue. A
// placeholder in lower case ({k}, {t}, {t2}) takes the word in lower case.
type vocab struct {
	kinds []string
	// themes are in the same order in every language, that of themeCategories.
	themes []string
	moods  []string
	// titles and sentences are the templates of event titles and description sentences.
	titles    []string
	sentences []string
	// names are people (mostly artists) that venues and organizers are named after.
	names      []string
	venueKinds []string
	// venueName and orgName combine {KIND} and {NAME}.
	venueName string
	orgKinds  []string
	orgName   string
	// streets hold {N}, the house number.
	streets []string
	cities  []seedCity
	// elision is set for French, which writes "de" as "d'" before a vowel or a mute h.
	elision bool
}

var elisionRE = regexp.MustCompile(`\b([Dd])e ([aeiouyhâàéèêîôûAEIOUYHÂÀÉÈÊÎÔÛ])`)

// fix applies the spelling rules of the language to a filled template.
func (v *vocab) fix(s string) string {
	if v.elision {
		return elisionRE.ReplaceAllString(s, "${1}'$2")
	}
	return s
}

// seedCity is a real city with its centre, zone and how addresses and phone numbers look there.
type seedCity struct {
	name, in, country, zone string
	lat, lng                float64
	zips                    []string
	phone                   string
}

// langWeights make the bigger languages of the service's audience more frequent, in storage.Langs
// order (nl en fr de it pl es).
var langWeights = []int{15, 26, 20, 20, 8, 5, 6}

// vocabs holds one vocabulary per language.
var vocabs = map[storage.Lang]*vocab{
	"en": {
		kinds: []string{"Concert", "Festival", "Market", "Exhibition", "Workshop", "Night", "Tour", "Fair",
			"Screening", "Lecture", "Recital", "Show", "Party", "Gala", "Tasting", "Course", "Reading", "Parade"},
		themes: []string{"Jazz", "Blues", "Folk", "Rock", "Opera", "Ballet", "Theatre", "Comedy", "Poetry",
			"Film", "Photography", "Design", "Craft", "Wine", "Beer", "Cheese", "Food", "Book", "Antiques",
			"Garden", "Science", "History", "Family", "Dance", "Choir", "Piano", "Orchestra", "Chamber Music"},
		moods: []string{"Summer", "Winter", "Spring", "Autumn", "Christmas", "Easter", "Midnight", "Weekend",
			"Sunday", "Open-Air", "Annual", "Acoustic"},
		titles: []string{"{M} {T} {K}", "{T} {K}", "{T} {K} {IN}", "The {M} {T} {K}", "{T} and {T2} {K}",
			"{K} of {T}"},
		sentences: []string{
			"Join us for an evening of {t} and {t2} at {V}.",
			"The {m} {k} returns to {C} with local and international artists.",
			"Tickets are available at the door and online; children under twelve enter free.",
			"Expect {t}, {t2} and good company in the heart of {C}.",
			"A {k} for the whole family, with {t} in the afternoon and {t2} at night.",
			"Doors open one hour before the start. Food and drinks are served on site.",
		},
		names: []string{"Shakespeare", "Dickens", "Austen", "Elgar", "Purcell", "Turner", "Byron", "Wilde",
			"Joyce", "Keats", "Brontë", "Handel", "Holst", "Britten", "Constable", "Tennyson", "Milton", "Blake",
			"Hardy", "Woolf"},
		venueKinds: []string{"Hall", "Theatre", "Arts Centre", "Gallery", "Museum", "Playhouse", "Church",
			"Tavern", "Cinema", "Library", "Gardens", "Club"},
		venueName: "The {NAME} {KIND}",
		orgKinds:  []string{"Society", "Trust", "Foundation", "Music School", "Arts Council", "Agency"},
		orgName:   "{NAME} {KIND}",
		streets: []string{"{N} High Street", "{N} Church Road", "{N} Station Road", "{N} Victoria Street",
			"{N} King's Road", "{N} Market Square", "{N} Mill Lane", "{N} Queen Street", "{N} Park Avenue",
			"{N} Bridge Street"},
		cities: []seedCity{
			{"London", "in London", "United Kingdom", "Europe/London", 51.5074, -0.1278, []string{"WC2H 9JQ", "SE1 9PX", "N1 9AG", "E1 6AN"}, "+44 20"},
			{"Dublin", "in Dublin", "Ireland", "Europe/Dublin", 53.3498, -6.2603, []string{"D02 X285", "D08 VF8H", "D01 F5P2"}, "+353 1"},
			{"Edinburgh", "in Edinburgh", "United Kingdom", "Europe/London", 55.9533, -3.1883, []string{"EH1 1YZ", "EH3 9DR", "EH8 9YL"}, "+44 131"},
			{"Manchester", "in Manchester", "United Kingdom", "Europe/London", 53.4808, -2.2426, []string{"M1 1AD", "M2 5PD", "M4 1HN"}, "+44 161"},
			{"Bristol", "in Bristol", "United Kingdom", "Europe/London", 51.4545, -2.5879, []string{"BS1 4DJ", "BS1 5TR", "BS8 1TH"}, "+44 117"},
		},
	},
	"fr": {
		kinds: []string{"concert", "festival", "marché", "exposition", "atelier", "nuit", "visite", "foire",
			"projection", "conférence", "récital", "spectacle", "soirée", "gala", "dégustation", "cours",
			"lecture", "bal"},
		themes: []string{"jazz", "blues", "chanson", "rock", "opéra", "ballet", "théâtre", "comédie", "poésie",
			"cinéma", "photographie", "design", "artisanat", "vin", "bière", "fromage", "gastronomie", "livres",
			"antiquités", "jardin", "sciences", "histoire", "famille", "danse", "chorale", "piano", "orchestre",
			"musique baroque"},
		moods: []string{"Été", "Printemps", "Automne", "Hiver", "Noël", "Pâques", "Carnaval", "Fête",
			"Week-end", "Minuit", "Dimanche", "Rentrée"},
		titles: []string{"{K} de {t}", "{K} de {t} {IN}", "{M} : {k} de {t}", "{K} {t} et {t2}",
			"{K} de {t} – {M}"},
		sentences: []string{
			"Rejoignez-nous pour une soirée de {t} et de {t2} à {V}.",
			"Ce rendez-vous revient {IN} avec des artistes d'ici et d'ailleurs.",
			"Entrée libre pour les enfants de moins de douze ans ; billets en vente sur place.",
			"Au programme : {t}, {t2} et bonne humeur au cœur de {C}.",
			"Un moment pour toute la famille, avec {t} l'après-midi et {t2} le soir.",
			"Ouverture des portes une heure avant le début. Restauration et boissons sur place.",
		},
		names: []string{"Molière", "Voltaire", "Hugo", "Rameau", "Debussy", "Ravel", "Lumière", "Monet",
			"Renoir", "Piaf", "Berlioz", "Bizet", "Colette", "Cézanne", "Fauré", "Rodin", "Satie", "Proust", "Zola",
			"Chagall"},
		venueKinds: []string{"Théâtre", "Salle", "Espace", "Galerie", "Musée", "Maison de la culture",
			"Église", "Café", "Cinéma", "Bibliothèque", "Parc", "Halle"},
		venueName: "{KIND} {NAME}",
		orgKinds:  []string{"Association", "Fondation", "Compagnie", "Conservatoire", "Les Amis de", "Agence"},
		orgName:   "{KIND} {NAME}",
		elision:   true,
		streets: []string{"{N} rue de la Paix", "{N} rue Victor Hugo", "{N} avenue Jean Jaurès",
			"{N} boulevard Voltaire", "{N} place de la République", "{N} rue du Marché", "{N} quai des Arts",
			"{N} rue de l'Église", "{N} chemin des Vignes", "{N} rue Pasteur"},
		cities: []seedCity{
			{"Paris", "à Paris", "France", "Europe/Paris", 48.8566, 2.3522, []string{"75001", "75004", "75011", "75018"}, "+33 1"},
			{"Lyon", "à Lyon", "France", "Europe/Paris", 45.7640, 4.8357, []string{"69001", "69002", "69007"}, "+33 4"},
			{"Marseille", "à Marseille", "France", "Europe/Paris", 43.2965, 5.3698, []string{"13001", "13006", "13008"}, "+33 4"},
			{"Bordeaux", "à Bordeaux", "France", "Europe/Paris", 44.8378, -0.5792, []string{"33000", "33300", "33800"}, "+33 5"},
			{"Lille", "à Lille", "France", "Europe/Paris", 50.6292, 3.0573, []string{"59000", "59800"}, "+33 3"},
			{"Bruxelles", "à Bruxelles", "Belgique", "Europe/Brussels", 50.8503, 4.3517, []string{"1000", "1050", "1060"}, "+32 2"},
			{"Genève", "à Genève", "Suisse", "Europe/Zurich", 46.2044, 6.1432, []string{"1201", "1204", "1205"}, "+41 22"},
		},
	},
	"de": {
		kinds: []string{"Konzert", "Festival", "Markt", "Ausstellung", "Workshop", "Nacht", "Führung", "Messe",
			"Filmabend", "Vortrag", "Liederabend", "Show", "Party", "Gala", "Weinprobe", "Kurs", "Lesung", "Umzug"},
		themes: []string{"Jazz", "Blues", "Volksmusik", "Rock", "Oper", "Ballett", "Theater", "Kabarett", "Poesie",
			"Kino", "Fotografie", "Design", "Handwerk", "Wein", "Bier", "Käse", "Kulinarik", "Bücher",
			"Antiquitäten", "Garten", "Wissenschaft", "Geschichte", "Familie", "Tanz", "Chor", "Klavier",
			"Orchester", "Kammermusik"},
		moods: []string{"Sommer", "Winter", "Frühling", "Herbst", "Weihnachten", "Ostern", "Karneval",
			"Wochenende", "Mitternacht", "Sonntag", "Advent", "Open-Air"},
		titles: []string{"{T}-{K}", "{M}-{K}: {T}", "{K}: {T} und {T2}", "{T}-{K} {IN}", "{M}-{K} {IN}"},
		sentences: []string{
			"Ein Abend voller {T} und {T2} im Herzen von {C}.",
			"Der Eintritt für Kinder unter zwölf Jahren ist frei.",
			"Einlass eine Stunde vor Beginn. Speisen und Getränke gibt es vor Ort.",
			"Für die ganze Familie: nachmittags {T}, abends {T2}.",
			"Veranstaltungsort ist {V} {IN}.",
			"Karten gibt es an der Abendkasse und im Vorverkauf.",
		},
		names: []string{"Müller", "Schröder", "Bach", "Goethe", "Schiller", "Beethoven", "Brahms", "Dürer",
			"Heine", "Humboldt", "Mozart", "Brecht", "Schubert", "Händel", "Klimt", "Wagner", "Dietrich", "Kafka",
			"Rilke", "Haydn"},
		venueKinds: []string{"Konzerthaus", "Theater", "Kulturzentrum", "Galerie", "Museum", "Stadthalle",
			"Kirche", "Biergarten", "Kunsthalle", "Jazzkeller", "Bibliothek", "Kino"},
		venueName: "{KIND} {NAME}",
		orgKinds:  []string{"Kulturverein", "Stiftung", "Förderkreis", "Musikschule", "Freundeskreis", "Agentur"},
		orgName:   "{KIND} {NAME}",
		streets: []string{"Hauptstraße {N}", "Bahnhofstraße {N}", "Schillerstraße {N}", "Goethestraße {N}",
			"Marktplatz {N}", "Gartenweg {N}", "Lindenallee {N}", "Kirchgasse {N}", "Am Rathaus {N}",
			"Mühlenweg {N}"},
		cities: []seedCity{
			{"Berlin", "in Berlin", "Deutschland", "Europe/Berlin", 52.5200, 13.4050, []string{"10115", "10178", "10997", "12043"}, "+49 30"},
			{"München", "in München", "Deutschland", "Europe/Berlin", 48.1351, 11.5820, []string{"80331", "80469", "81667"}, "+49 89"},
			{"Hamburg", "in Hamburg", "Deutschland", "Europe/Berlin", 53.5511, 9.9937, []string{"20095", "20359", "22767"}, "+49 40"},
			{"Köln", "in Köln", "Deutschland", "Europe/Berlin", 50.9375, 6.9603, []string{"50667", "50672", "50823"}, "+49 221"},
			{"Leipzig", "in Leipzig", "Deutschland", "Europe/Berlin", 51.3397, 12.3731, []string{"04109", "04275"}, "+49 341"},
			{"Wien", "in Wien", "Österreich", "Europe/Vienna", 48.2082, 16.3738, []string{"1010", "1060", "1070"}, "+43 1"},
			{"Zürich", "in Zürich", "Schweiz", "Europe/Zurich", 47.3769, 8.5417, []string{"8001", "8004", "8005"}, "+41 44"},
		},
	},
	"nl": {
		kinds: []string{"concert", "festival", "markt", "tentoonstelling", "workshop", "nacht", "rondleiding",
			"beurs", "filmavond", "lezing", "voorstelling", "show", "feest", "gala", "proeverij", "cursus",
			"voorleesmiddag", "optocht"},
		themes: []string{"jazz", "blues", "kleinkunst", "rock", "opera", "ballet", "theater", "cabaret", "poëzie",
			"film", "fotografie", "design", "ambacht", "wijn", "bier", "kaas", "eten", "boeken", "antiek", "tuin",
			"wetenschap", "geschiedenis", "familie", "dans", "koor", "piano", "orkest", "kamermuziek"},
		moods: []string{"Zomer", "Winter", "Lente", "Herfst", "Kerst", "Pasen", "Carnaval", "Weekend",
			"Middernacht", "Zondag", "Koningsdag", "Najaar"},
		titles: []string{"{K}: {t} en {t2}", "{M}: {k} {IN}", "{T}{k} {IN}", "{M}{k}: {t}", "{K} vol {t}"},
		sentences: []string{
			"Kom genieten van een avond vol {t} en {t2} in {V}.",
			"Kinderen tot twaalf jaar hebben gratis toegang.",
			"De deuren gaan een uur voor aanvang open. Eten en drinken ter plaatse.",
			"Een {k} voor het hele gezin, met {t} in de middag en {t2} in de avond.",
			"Kaarten zijn verkrijgbaar aan de kassa en online.",
			"Midden {IN}: {t}, {t2} en gezelligheid.",
		},
		names: []string{"Rembrandt", "Vermeer", "Erasmus", "Spinoza", "Vondel", "Mondriaan", "Escher",
			"Huygens", "Brel", "Magritte", "Rubens", "Sweelinck", "Bredero", "Ensor", "Breughel", "Van Gogh", "Hals",
			"Steen", "Bosch", "Multatuli"},
		venueKinds: []string{"Concertgebouw", "Schouwburg", "Cultuurhuis", "Galerie", "Museum", "Theater",
			"Kerk", "Café", "Paviljoen", "Bibliotheek", "Podium", "Filmhuis"},
		venueName: "{KIND} {NAME}",
		orgKinds:  []string{"Stichting", "Vereniging", "Muziekschool", "Cultuurcollectief", "Vrienden van", "Bureau"},
		orgName:   "{KIND} {NAME}",
		streets: []string{"Kerkstraat {N}", "Dorpsstraat {N}", "Molenweg {N}", "Stationsplein {N}",
			"Herengracht {N}", "Prinsengracht {N}", "Markt {N}", "Lindenlaan {N}", "Nieuwstraat {N}",
			"Grote Markt {N}"},
		cities: []seedCity{
			{"Amsterdam", "in Amsterdam", "Nederland", "Europe/Amsterdam", 52.3676, 4.9041, []string{"1012 JS", "1016 DK", "1071 XX"}, "+31 20"},
			{"Rotterdam", "in Rotterdam", "Nederland", "Europe/Amsterdam", 51.9244, 4.4777, []string{"3011 AD", "3012 CN"}, "+31 10"},
			{"Utrecht", "in Utrecht", "Nederland", "Europe/Amsterdam", 52.0907, 5.1214, []string{"3511 LX", "3512 JE"}, "+31 30"},
			{"Den Haag", "in Den Haag", "Nederland", "Europe/Amsterdam", 52.0705, 4.3007, []string{"2511 CV", "2513 AA"}, "+31 70"},
			{"Antwerpen", "in Antwerpen", "België", "Europe/Brussels", 51.2194, 4.4025, []string{"2000", "2018"}, "+32 3"},
			{"Gent", "in Gent", "België", "Europe/Brussels", 51.0543, 3.7174, []string{"9000"}, "+32 9"},
			{"Brussel", "in Brussel", "België", "Europe/Brussels", 50.8503, 4.3517, []string{"1000", "1050"}, "+32 2"},
		},
	},
	"it": {
		kinds: []string{"concerto", "festival", "mercato", "mostra", "laboratorio", "notte", "visita", "fiera",
			"proiezione", "conferenza", "recital", "spettacolo", "festa", "gala", "degustazione", "corso",
			"lettura", "sfilata"},
		themes: []string{"jazz", "blues", "canzone", "rock", "opera", "balletto", "teatro", "commedia", "poesia",
			"cinema", "fotografia", "design", "artigianato", "vino", "birra", "formaggio", "cucina", "libri",
			"antiquariato", "giardino", "scienza", "storia", "famiglia", "danza", "coro", "pianoforte",
			"orchestra", "musica barocca"},
		moods: []string{"Estate", "Inverno", "Primavera", "Autunno", "Natale", "Pasqua", "Carnevale",
			"Ferragosto", "Mezzanotte", "Domenica", "Fine settimana", "Vendemmia"},
		titles: []string{"{K} di {t}", "{K} di {t} {IN}", "{M}: {k} di {t}", "{K}: {t} e {t2}",
			"{K} di {t} – {M}"},
		sentences: []string{
			"Vi aspettiamo per una serata di {t} e {t2} presso {V}.",
			"L'appuntamento torna {IN} con artisti locali e internazionali.",
			"Ingresso gratuito per i bambini sotto i dodici anni.",
			"Apertura porte un'ora prima dell'inizio. Cibo e bevande sul posto.",
			"Un evento per tutta la famiglia, con {t} nel pomeriggio e {t2} la sera.",
			"Nel cuore di {C}: {t}, {t2} e buona compagnia.",
		},
		names: []string{"Verdi", "Puccini", "Rossini", "Dante", "Petrarca", "Leonardo", "Raffaello",
			"Caravaggio", "Galilei", "Vivaldi", "Bellini", "Donizetti", "Botticelli", "Monteverdi", "Boccaccio",
			"Michelangelo", "Tiziano", "Manzoni", "Fellini", "Paganini"},
		venueKinds: []string{"Teatro", "Sala", "Auditorium", "Galleria", "Museo", "Palazzo", "Chiesa",
			"Caffè", "Cortile", "Biblioteca", "Giardino", "Cinema"},
		venueName: "{KIND} {NAME}",
		orgKinds:  []string{"Associazione", "Fondazione", "Circolo", "Scuola di musica", "Amici di", "Agenzia"},
		orgName:   "{KIND} {NAME}",
		streets: []string{"Via Roma {N}", "Via Garibaldi {N}", "Corso Vittorio Emanuele {N}",
			"Piazza del Duomo {N}", "Via Dante {N}", "Via Mazzini {N}", "Viale dei Mille {N}", "Via Verdi {N}",
			"Piazza della Repubblica {N}", "Via Cavour {N}"},
		cities: []seedCity{
			{"Roma", "a Roma", "Italia", "Europe/Rome", 41.9028, 12.4964, []string{"00184", "00186", "00153"}, "+39 06"},
			{"Milano", "a Milano", "Italia", "Europe/Rome", 45.4642, 9.1900, []string{"20121", "20122", "20144"}, "+39 02"},
			{"Firenze", "a Firenze", "Italia", "Europe/Rome", 43.7696, 11.2558, []string{"50122", "50123"}, "+39 055"},
			{"Napoli", "a Napoli", "Italia", "Europe/Rome", 40.8518, 14.2681, []string{"80132", "80134"}, "+39 081"},
			{"Torino", "a Torino", "Italia", "Europe/Rome", 45.0703, 7.6869, []string{"10121", "10123"}, "+39 011"},
			{"Bologna", "a Bologna", "Italia", "Europe/Rome", 44.4949, 11.3426, []string{"40121", "40125"}, "+39 051"},
		},
	},
	"pl": {
		kinds: []string{"koncert", "festiwal", "targ", "wystawa", "warsztaty", "noc", "wycieczka", "jarmark",
			"pokaz", "wykład", "recital", "spektakl", "potańcówka", "gala", "degustacja", "kurs", "czytanie",
			"parada"},
		themes: []string{"jazz", "blues", "piosenka", "rock", "opera", "balet", "teatr", "komedia", "poezja",
			"kino", "fotografia", "design", "rzemiosło", "wino", "piwo", "ser", "kuchnia", "książki", "antyki",
			"ogród", "nauka", "historia", "rodzina", "taniec", "chór", "fortepian", "orkiestra", "muzyka dawna"},
		moods: []string{"Lato", "Zima", "Wiosna", "Jesień", "Boże Narodzenie", "Wielkanoc", "Karnawał",
			"Weekend", "Północ", "Niedziela", "Majówka", "Andrzejki"},
		titles: []string{"{K}: {t} i {t2}", "{M}: {k} {IN}", "{K} – {t}", "{M} – {k}: {t}", "{K} {IN}: {t}"},
		sentences: []string{
			"Zapraszamy na wieczór z muzyką i dobrą zabawą {IN}.",
			"W programie: {t}, {t2} i wiele więcej.",
			"Dzieci do lat dwunastu wchodzą za darmo.",
			"Drzwi otwierane godzinę przed rozpoczęciem. Jedzenie i napoje na miejscu.",
			"Bilety dostępne w kasie i online.",
			"Miejsce: {V}, {C}.",
		},
		names: []string{"Chopin", "Kopernik", "Mickiewicz", "Słowacki", "Curie", "Moniuszko", "Szymanowski",
			"Wyspiański", "Paderewski", "Matejko", "Sienkiewicz", "Penderecki", "Szymborska", "Kieślowski",
			"Wisła", "Miłosz", "Lem", "Kantor", "Wajda", "Norwid"},
		venueKinds: []string{"Filharmonia", "Teatr", "Dom Kultury", "Galeria", "Muzeum", "Klub", "Kościół",
			"Kawiarnia", "Kino", "Biblioteka", "Park", "Hala"},
		venueName: "{KIND} „{NAME}”",
		orgKinds:  []string{"Stowarzyszenie", "Fundacja", "Towarzystwo", "Szkoła Muzyczna", "Agencja", "Klub"},
		orgName:   "{KIND} „{NAME}”",
		streets: []string{"ul. Długa {N}", "ul. Floriańska {N}", "ul. Marszałkowska {N}", "ul. Piotrkowska {N}",
			"ul. Mickiewicza {N}", "ul. Słowackiego {N}", "ul. Kościuszki {N}", "Rynek Główny {N}",
			"al. Jerozolimskie {N}", "ul. Nowy Świat {N}"},
		cities: []seedCity{
			{"Warszawa", "w Warszawie", "Polska", "Europe/Warsaw", 52.2297, 21.0122, []string{"00-001", "00-950", "02-532"}, "+48 22"},
			{"Kraków", "w Krakowie", "Polska", "Europe/Warsaw", 50.0647, 19.9450, []string{"31-001", "31-042"}, "+48 12"},
			{"Gdańsk", "w Gdańsku", "Polska", "Europe/Warsaw", 54.3520, 18.6466, []string{"80-001", "80-831"}, "+48 58"},
			{"Wrocław", "we Wrocławiu", "Polska", "Europe/Warsaw", 51.1079, 17.0385, []string{"50-001", "50-106"}, "+48 71"},
			{"Poznań", "w Poznaniu", "Polska", "Europe/Warsaw", 52.4064, 16.9252, []string{"60-001", "61-772"}, "+48 61"},
			{"Łódź", "w Łodzi", "Polska", "Europe/Warsaw", 51.7592, 19.4560, []string{"90-001", "90-136"}, "+48 42"},
		},
	},
	"es": {
		kinds: []string{"concierto", "festival", "mercado", "exposición", "taller", "noche", "visita", "feria",
			"proyección", "conferencia", "recital", "espectáculo", "fiesta", "gala", "cata", "curso", "lectura",
			"desfile"},
		themes: []string{"jazz", "blues", "flamenco", "rock", "ópera", "ballet", "teatro", "comedia", "poesía",
			"cine", "fotografía", "diseño", "artesanía", "vino", "cerveza", "queso", "gastronomía", "libros",
			"antigüedades", "jardín", "ciencia", "historia", "familia", "danza", "coro", "piano", "orquesta",
			"zarzuela"},
		moods: []string{"Verano", "Invierno", "Primavera", "Otoño", "Navidad", "Semana Santa", "Carnaval",
			"Fin de semana", "Medianoche", "Domingo", "San Juan", "Vendimia"},
		titles: []string{"{K} de {t}", "{K} de {t} {IN}", "{M}: {k} de {t}", "{K} de {t} y {t2}",
			"{K} de {t} – {M}"},
		sentences: []string{
			"Te esperamos para una velada de {t} y {t2} en {V}.",
			"La cita vuelve a {C} con artistas locales e internacionales.",
			"Entrada gratuita para menores de doce años.",
			"Apertura de puertas una hora antes del inicio. Comida y bebida en el lugar.",
			"Una propuesta para toda la familia, con {t} por la tarde y {t2} por la noche.",
			"En pleno corazón de {C}: {t}, {t2} y buena compañía.",
		},
		names: []string{"Cervantes", "Goya", "Velázquez", "Picasso", "Lorca", "Falla", "Albéniz", "Machado",
			"Sorolla", "Gaudí", "Granados", "Unamuno", "Zurbarán", "Murillo", "Rodrigo", "Dalí", "Miró", "Quevedo",
			"Góngora", "Buñuel"},
		venueKinds: []string{"Teatro", "Sala", "Auditorio", "Galería", "Museo", "Palacio", "Iglesia", "Café",
			"Patio", "Biblioteca", "Centro Cultural", "Cine"},
		venueName: "{KIND} {NAME}",
		orgKinds:  []string{"Asociación", "Fundación", "Círculo", "Escuela de Música", "Amigos de", "Agencia"},
		orgName:   "{KIND} {NAME}",
		streets: []string{"Calle Mayor {N}", "Gran Vía {N}", "Calle de Alcalá {N}", "Paseo del Prado {N}",
			"Calle Real {N}", "Avenida de la Constitución {N}", "Plaza Mayor {N}", "Calle San Fernando {N}",
			"Rambla de Catalunya {N}", "Calle Larios {N}"},
		cities: []seedCity{
			{"Madrid", "en Madrid", "España", "Europe/Madrid", 40.4168, -3.7038, []string{"28012", "28013", "28014"}, "+34 91"},
			{"Barcelona", "en Barcelona", "España", "Europe/Madrid", 41.3874, 2.1686, []string{"08001", "08002", "08007"}, "+34 93"},
			{"Sevilla", "en Sevilla", "España", "Europe/Madrid", 37.3891, -5.9845, []string{"41001", "41004"}, "+34 954"},
			{"Valencia", "en Valencia", "España", "Europe/Madrid", 39.4699, -0.3763, []string{"46001", "46002"}, "+34 96"},
			{"Bilbao", "en Bilbao", "España", "Europe/Madrid", 43.2630, -2.9350, []string{"48001", "48005"}, "+34 94"},
			{"Málaga", "en Málaga", "España", "Europe/Madrid", 36.7213, -4.4214, []string{"29001", "29005"}, "+34 952"},
		},
	},
}

// categoryTree is the two-level category tree: each parent and its children (40 categories).
var categoryTree = []struct {
	name     string
	children []string
}{
	{"Music", []string{"Jazz", "Classical", "Rock and Pop", "Electronic", "Folk"}},
	{"Performing Arts", []string{"Theatre", "Comedy", "Opera", "Dance"}},
	{"Visual Arts", []string{"Exhibitions", "Photography", "Design", "Street Art"}},
	{"Food and Drink", []string{"Wine", "Beer", "Markets", "Cooking"}},
	{"Family", []string{"Kids", "Workshops", "Outdoors"}},
	{"Sports", []string{"Running", "Cycling", "Football", "Swimming"}},
	{"Film", []string{"Screenings", "Documentaries", "Animation", "Film Festivals"}},
	{"Learning", []string{"Lectures", "Languages", "Science", "Literature"}},
}

// themeCategories is the category of each theme, by position in every vocabulary's themes: jazz,
// blues, folk song, rock, opera, ballet, theatre, comedy, poetry, film, photography, design, craft,
// wine, beer, cheese, food, books, antiques, garden, science, history, family, dance, choir, piano,
// orchestra, early or chamber music.
var themeCategories = []string{"Jazz", "Jazz", "Folk", "Rock and Pop", "Opera", "Dance", "Theatre", "Comedy",
	"Literature", "Screenings", "Photography", "Design", "Workshops", "Wine", "Beer", "Markets", "Cooking",
	"Literature", "Markets", "Outdoors", "Science", "Lectures", "Kids", "Dance", "Classical", "Classical",
	"Classical", "Classical"}

// extraTags are the tags of every language, beyond the themes of each vocabulary (tags as well).
var extraTags = []string{"free", "outdoor", "indoor", "family-friendly", "accessible", "students", "seniors",
	"evening", "afternoon", "morning", "weekend", "live", "premiere", "local", "international", "charity",
	"vegan", "wheelchair access", "sold out soon", "booking required", "kids", "teens", "pet friendly",
	"late night", "matinee", "workshop", "hands-on", "guided", "tour", "vintage", "handmade", "organic",
	"christmas market", "new year", "summer", "winter", "spring", "autumn", "carnival", "open-air",
	"acoustic", "unplugged", "orchestra", "choir", "solo", "duo", "trio", "quartet", "big band", "DJ",
	"techno", "house", "hip hop", "reggae", "soul", "funk", "gospel", "baroque", "contemporary", "modern",
	"classic", "retro", "art deco", "architecture", "heritage", "museum night", "science fair", "robotics",
	"coding", "startup", "networking", "book fair", "poetry slam", "storytelling", "puppets", "magic",
	"circus", "street food", "tapas", "cheese", "chocolate", "coffee", "tea", "cocktails", "craft beer",
	"natural wine", "brunch", "dinner", "picnic", "yoga", "meditation", "wellness", "running", "cycling",
	"hiking", "swimming", "football", "tennis", "chess", "board games", "gaming", "cosplay", "anime",
	"comics", "fashion", "flea market", "antiques", "crafts", "pottery", "painting", "drawing", "sculpture",
	"photography", "film club", "documentary", "short films", "silent film", "opera gala", "ballet",
	"contemporary dance", "tango", "salsa", "swing", "ceilidh", "folk dance", "karaoke", "quiz", "stand-up"}
