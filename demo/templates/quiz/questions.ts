/** One question: its text, four choices and the index of the right one. */
export interface Question {
  readonly text: string;
  readonly choices: readonly [string, string, string, string];
  readonly answer: 0 | 1 | 2 | 3;
}

/** The quiz, in order. Short enough to read on a phone at a glance. */
export const QUESTIONS: readonly Question[] = [
  { text: 'Which planet has the shortest day?', choices: ['Earth', 'Jupiter', 'Mars', 'Venus'], answer: 1 },
  { text: 'How many legs does a spider have?', choices: ['6', '8', '10', '12'], answer: 1 },
  { text: 'What is the chemical symbol of gold?', choices: ['Ag', 'Gd', 'Au', 'Go'], answer: 2 },
  { text: 'Which ocean is the largest?', choices: ['Atlantic', 'Indian', 'Arctic', 'Pacific'], answer: 3 },
  { text: 'Who painted the Mona Lisa?', choices: ['Leonardo da Vinci', 'Michelangelo', 'Raphael', 'Titian'], answer: 0 },
  { text: 'What is the smallest prime number?', choices: ['0', '1', '2', '3'], answer: 2 },
  { text: 'Which gas do plants take in?', choices: ['Oxygen', 'Carbon dioxide', 'Nitrogen', 'Helium'], answer: 1 },
  { text: 'How many minutes are in a day?', choices: ['1,440', '1,000', '3,600', '2,400'], answer: 0 },
];
