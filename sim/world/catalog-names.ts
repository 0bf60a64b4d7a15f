/** Name pools the catalog generator draws from. Plain data; order matters for determinism. */

export interface LeagueSpec {
  code: string;
  name: string;
  sport: string;
  /** Soccer-like leagues can end in a draw: listed as a 3-way neg-risk event on alpha. */
  draws: boolean;
  recurrence: 'daily' | 'weekly';
  /** Tag slug of the league (a child of `sports`, or of `soccer`). */
  tag: string;
  teams: readonly (readonly [abbreviation: string, name: string])[];
}

export const LEAGUES: readonly LeagueSpec[] = [
  {
    code: 'NBA',
    name: 'NBA',
    sport: 'basketball',
    draws: false,
    recurrence: 'daily',
    tag: 'nba',
    teams: [
      ['BOS', 'Boston Celtics'],
      ['LAL', 'Los Angeles Lakers'],
      ['DEN', 'Denver Nuggets'],
      ['MIL', 'Milwaukee Bucks'],
      ['PHI', 'Philadelphia 76ers'],
      ['DET', 'Detroit Pistons'],
      ['GSW', 'Golden State Warriors'],
      ['MIA', 'Miami Heat'],
      ['NYK', 'New York Knicks'],
      ['DAL', 'Dallas Mavericks'],
    ],
  },
  {
    code: 'NHL',
    name: 'NHL',
    sport: 'hockey',
    draws: false,
    recurrence: 'daily',
    tag: 'nhl',
    teams: [
      ['TOR', 'Toronto Maple Leafs'],
      ['MTL', 'Montreal Canadiens'],
      ['BOS', 'Boston Bruins'],
      ['NYR', 'New York Rangers'],
      ['EDM', 'Edmonton Oilers'],
      ['VGK', 'Vegas Golden Knights'],
      ['COL', 'Colorado Avalanche'],
      ['FLA', 'Florida Panthers'],
    ],
  },
  {
    code: 'NFL',
    name: 'NFL',
    sport: 'football',
    draws: false,
    recurrence: 'weekly',
    tag: 'nfl',
    teams: [
      ['KC', 'Kansas City Chiefs'],
      ['BUF', 'Buffalo Bills'],
      ['PHI', 'Philadelphia Eagles'],
      ['SF', 'San Francisco 49ers'],
      ['DAL', 'Dallas Cowboys'],
      ['GB', 'Green Bay Packers'],
      ['BAL', 'Baltimore Ravens'],
      ['DET', 'Detroit Lions'],
    ],
  },
  {
    code: 'EPL',
    name: 'English Premier League',
    sport: 'soccer',
    draws: true,
    recurrence: 'weekly',
    tag: 'epl',
    teams: [
      ['ARS', 'Arsenal'],
      ['CHE', 'Chelsea'],
      ['LIV', 'Liverpool'],
      ['MCI', 'Manchester City'],
      ['MUN', 'Manchester United'],
      ['TOT', 'Tottenham Hotspur'],
      ['NEW', 'Newcastle United'],
      ['AVL', 'Aston Villa'],
    ],
  },
];

/** Tag taxonomy shared by every venue (each venue numbers it its own way). parent = null → top level. */
export const TAG_TREE: readonly (readonly [slug: string, label: string, parent: string | null])[] = [
  ['sports', 'Sports', null],
  ['nba', 'NBA', 'sports'],
  ['nhl', 'NHL', 'sports'],
  ['nfl', 'NFL', 'sports'],
  ['soccer', 'Soccer', 'sports'],
  ['epl', 'EPL', 'soccer'],
  ['crypto', 'Crypto', null],
  ['bitcoin', 'Bitcoin', 'crypto'],
  ['ethereum', 'Ethereum', 'crypto'],
  ['economics', 'Economics', null],
  ['fed', 'Fed Rates', 'economics'],
  ['inflation', 'Inflation', 'economics'],
  ['jobs', 'Jobs', 'economics'],
  ['politics', 'Politics', null],
  ['elections', 'Elections', 'politics'],
  ['world-elections', 'World Elections', 'elections'],
  ['culture', 'Culture', null],
  ['tech', 'Tech', 'culture'],
  ['ai', 'AI', 'tech'],
];

/** Top-level categories (a subset of the top-level tags, as the venues show them). */
export const CATEGORIES: readonly (readonly [slug: string, label: string])[] = [
  ['sports', 'Sports'],
  ['crypto', 'Crypto'],
  ['economics', 'Economics'],
  ['politics', 'Politics'],
  ['culture', 'Culture'],
];

export const COUNTRIES: readonly string[] = [
  'Portugal',
  'Chile',
  'Norway',
  'Kenya',
  'Japan',
  'Canada',
  'Poland',
  'Colombia',
];

export const CANDIDATE_NAMES: readonly string[] = [
  'Ana Ferreira',
  'Bruno Costa',
  'Carla Mendes',
  'Daniel Sousa',
  'Elena Ruiz',
  'Felipe Soto',
  'Greta Lund',
  'Hiro Tanaka',
  'Ines Duarte',
  'Jonas Berg',
  'Kofi Mensah',
  'Lena Nowak',
];

export const TECH_EVENTS: readonly (readonly [company: string, what: string])[] = [
  ['OpenAI', 'release GPT-6'],
  ['Apple', 'announce a foldable iPhone'],
  ['Google', 'release Gemini 4'],
  ['Tesla', 'launch a robotaxi service in Texas'],
  ['SpaceX', 'reach orbit with Starship V3'],
  ['Nvidia', 'reach a $6T market cap'],
  ['Anthropic', 'release Claude 6'],
  ['Meta', 'ship consumer AR glasses'],
];

export const FED_OUTCOMES: readonly string[] = ['Cut 50+ bps', 'Cut 25 bps', 'No change', 'Hike 25+ bps'];
export const CPI_OUTCOMES: readonly string[] = ['≤2.4%', '2.5%', '2.6%', '2.7%', '2.8%', '≥2.9%'];

export const MONTHS: readonly string[] = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
