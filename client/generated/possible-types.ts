
      export type PossibleTypesResultData = {
  "possibleTypes": {
    "Node": [
      "Sequence",
      "User"
    ]
  }
};
      const result: PossibleTypesResultData = {
  "possibleTypes": {
    "Node": [
      "Sequence",
      "User"
    ]
  }
};
      export default result;
    