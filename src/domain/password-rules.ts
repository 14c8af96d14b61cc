/** The shortest password an account may have; the dashboard checks it before asking the API. */
export const MIN_PASSWORD_LENGTH = 10;
