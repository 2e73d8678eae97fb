Feature: total
  # The same tests for cucumber-js.

  Scenario: adds up the items
    When the cart holds 2 at 10 and 1 at 5
    Then the total is 25

  Scenario: takes ten percent off with TEN
    When the cart holds 2 at 10 with the code TEN
    Then the total is 18
