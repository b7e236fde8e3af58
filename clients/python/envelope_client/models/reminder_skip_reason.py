from enum import StrEnum


class ReminderSkipReason(StrEnum):
    COMPLETED = "completed"
    DECLINED = "declined"
    EMBEDDED = "embedded"
    NOT_THEIR_TURN = "not_their_turn"
    REMINDED_RECENTLY = "reminded_recently"

    def __str__(self) -> str:
        return str(self.value)
