// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {SimInit, SimERC20} from "./Tokens.sol";

interface IOptimisticRequester {
    function priceDisputed(bytes32 identifier, uint256 timestamp, bytes calldata ancillaryData, uint256 refund)
        external;
}

interface IConditionPreparer {
    function prepareCondition(address oracle, bytes32 questionId, uint256 outcomeSlotCount) external;
    function reportPayouts(bytes32 questionId, uint256[] calldata payouts) external;
}

// UMA OptimisticOracleV2 as the UMA CTF adapter uses it: request, propose, dispute (with the requester's
// dispute callback), settle. Rewards and bonds move in the request's currency. A disputed request waits for
// the DVM, which the sim never answers (its bonds stay in the oracle).
contract OptimisticOracleV2 is SimInit {
    event RequestPrice(
        address indexed requester,
        bytes32 identifier,
        uint256 timestamp,
        bytes ancillaryData,
        address currency,
        uint256 reward,
        uint256 finalFee
    );
    event ProposePrice(
        address indexed requester,
        address indexed proposer,
        bytes32 identifier,
        uint256 timestamp,
        bytes ancillaryData,
        int256 proposedPrice,
        uint256 expirationTimestamp,
        address currency
    );
    event DisputePrice(
        address indexed requester,
        address indexed proposer,
        address indexed disputer,
        bytes32 identifier,
        uint256 timestamp,
        bytes ancillaryData,
        int256 proposedPrice
    );
    event Settle(
        address indexed requester,
        address indexed proposer,
        address indexed disputer,
        bytes32 identifier,
        uint256 timestamp,
        bytes ancillaryData,
        int256 price,
        uint256 payout
    );

    struct Request {
        address proposer;
        address disputer;
        address currency;
        bool settled;
        bool callbackOnDispute;
        int256 proposedPrice;
        int256 resolvedPrice;
        uint256 expirationTime;
        uint256 reward;
        uint256 bond;
        uint256 customLiveness;
    }

    uint256 public constant DEFAULT_LIVENESS = 7200;
    mapping(bytes32 => Request) internal requests;

    function initOracle() external {
        _init();
    }

    function _key(address requester, bytes32 identifier, uint256 timestamp, bytes memory ancillaryData)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(requester, identifier, timestamp, ancillaryData));
    }

    function requestPrice(
        bytes32 identifier,
        uint256 timestamp,
        bytes calldata ancillaryData,
        address currency,
        uint256 reward
    ) external returns (uint256 totalBond) {
        Request storage r = requests[_key(msg.sender, identifier, timestamp, ancillaryData)];
        require(r.currency == address(0), "request already made");
        r.currency = currency;
        r.reward = reward;
        if (reward > 0) SimERC20(currency).transferFrom(msg.sender, address(this), reward);
        emit RequestPrice(msg.sender, identifier, timestamp, ancillaryData, currency, reward, 0);
        return 0;
    }

    function setBond(bytes32 identifier, uint256 timestamp, bytes calldata ancillaryData, uint256 bond)
        external
        returns (uint256)
    {
        requests[_key(msg.sender, identifier, timestamp, ancillaryData)].bond = bond;
        return bond;
    }

    function setCustomLiveness(bytes32 identifier, uint256 timestamp, bytes calldata ancillaryData, uint256 liveness)
        external
    {
        requests[_key(msg.sender, identifier, timestamp, ancillaryData)].customLiveness = liveness;
    }

    function setCallbacks(
        bytes32 identifier,
        uint256 timestamp,
        bytes calldata ancillaryData,
        bool,
        bool callbackOnPriceDisputed,
        bool
    ) external {
        requests[_key(msg.sender, identifier, timestamp, ancillaryData)].callbackOnDispute = callbackOnPriceDisputed;
    }

    function proposePrice(
        address requester,
        bytes32 identifier,
        uint256 timestamp,
        bytes calldata ancillaryData,
        int256 proposedPrice
    ) external returns (uint256 totalBond) {
        Request storage r = requests[_key(requester, identifier, timestamp, ancillaryData)];
        require(r.currency != address(0), "not requested");
        require(r.proposer == address(0), "already proposed");
        r.proposer = msg.sender;
        r.proposedPrice = proposedPrice;
        uint256 liveness = r.customLiveness == 0 ? DEFAULT_LIVENESS : r.customLiveness;
        r.expirationTime = block.timestamp + liveness;
        totalBond = r.bond;
        if (totalBond > 0) SimERC20(r.currency).transferFrom(msg.sender, address(this), totalBond);
        emit ProposePrice(
            requester, msg.sender, identifier, timestamp, ancillaryData, proposedPrice, r.expirationTime, r.currency
        );
    }

    function disputePrice(address requester, bytes32 identifier, uint256 timestamp, bytes calldata ancillaryData)
        external
        returns (uint256 totalBond)
    {
        Request storage r = requests[_key(requester, identifier, timestamp, ancillaryData)];
        require(r.proposer != address(0) && r.disputer == address(0), "not disputable");
        require(block.timestamp < r.expirationTime, "liveness over");
        r.disputer = msg.sender;
        totalBond = r.bond;
        if (totalBond > 0) SimERC20(r.currency).transferFrom(msg.sender, address(this), totalBond);
        emit DisputePrice(requester, r.proposer, msg.sender, identifier, timestamp, ancillaryData, r.proposedPrice);
        uint256 refund = r.reward;
        if (r.callbackOnDispute) {
            // The reward goes back to the requester, which may pay it into a new request.
            if (refund > 0) {
                r.reward = 0;
                SimERC20(r.currency).transfer(requester, refund);
            }
            IOptimisticRequester(requester).priceDisputed(identifier, timestamp, ancillaryData, refund);
        }
    }

    function hasPrice(address requester, bytes32 identifier, uint256 timestamp, bytes calldata ancillaryData)
        external
        view
        returns (bool)
    {
        Request storage r = requests[_key(requester, identifier, timestamp, ancillaryData)];
        if (r.settled) return true;
        return r.proposer != address(0) && r.disputer == address(0) && block.timestamp >= r.expirationTime;
    }

    function settleAndGetPrice(bytes32 identifier, uint256 timestamp, bytes calldata ancillaryData)
        external
        returns (int256)
    {
        Request storage r = requests[_key(msg.sender, identifier, timestamp, ancillaryData)];
        if (r.settled) return r.resolvedPrice;
        require(r.proposer != address(0) && r.disputer == address(0), "not settleable");
        require(block.timestamp >= r.expirationTime, "liveness not over");
        r.settled = true;
        r.resolvedPrice = r.proposedPrice;
        uint256 payout = r.bond + r.reward;
        if (payout > 0) SimERC20(r.currency).transfer(r.proposer, payout);
        emit Settle(msg.sender, r.proposer, address(0), identifier, timestamp, ancillaryData, r.proposedPrice, payout);
        return r.proposedPrice;
    }
}

// UmaCtfAdapter (v3 shape): initialize prepares the condition (on the CTF, or on the NegRiskOperator for the
// neg-risk instance) and requests a price; the first dispute resets the question with a new request; resolve
// settles the request and reports payouts [YES, NO].
contract UmaCtfAdapter is SimInit {
    event QuestionInitialized(
        bytes32 indexed questionID,
        uint256 indexed requestTimestamp,
        address indexed creator,
        bytes ancillaryData,
        address rewardToken,
        uint256 reward,
        uint256 proposalBond
    );
    event QuestionReset(bytes32 indexed questionID);
    event QuestionResolved(bytes32 indexed questionID, int256 indexed settledPrice, uint256[] payouts);

    bytes32 public constant YES_OR_NO_IDENTIFIER = "YES_OR_NO_QUERY";

    struct QuestionData {
        uint256 requestTimestamp;
        uint256 reward;
        uint256 proposalBond;
        uint256 liveness;
        address creator;
        address rewardToken;
        bool resolved;
        bool reset;
        bool refund;
        bytes ancillaryData;
    }

    IConditionPreparer public ctf;
    OptimisticOracleV2 public optimisticOracle;
    mapping(bytes32 => QuestionData) public questions;

    function initUmaAdapter(address _ctf, address _oo) external {
        _init();
        ctf = IConditionPreparer(_ctf);
        optimisticOracle = OptimisticOracleV2(_oo);
    }

    function _hexChar(uint8 v) internal pure returns (bytes1) {
        return bytes1(v < 10 ? v + 48 : v + 87);
    }

    /// ancillaryData ‖ ",initializer:" ‖ lowercase hex of the creator without 0x (AncillaryDataLib).
    function _appendInitializer(bytes memory data, address creator) internal pure returns (bytes memory) {
        bytes memory hexAddr = new bytes(40);
        uint160 a = uint160(creator);
        for (uint256 i = 0; i < 20; i++) {
            uint8 b = uint8(a >> (8 * (19 - i)));
            hexAddr[2 * i] = _hexChar(b >> 4);
            hexAddr[2 * i + 1] = _hexChar(b & 0x0f);
        }
        return abi.encodePacked(data, ",initializer:", hexAddr);
    }

    function initialize(
        bytes calldata ancillaryData,
        address rewardToken,
        uint256 reward,
        uint256 proposalBond,
        uint256 liveness
    ) external returns (bytes32 questionID) {
        bytes memory data = _appendInitializer(ancillaryData, msg.sender);
        questionID = keccak256(data);
        require(questions[questionID].requestTimestamp == 0, "already initialized");
        uint256 timestamp = block.timestamp;
        QuestionData storage q = questions[questionID];
        q.requestTimestamp = timestamp;
        q.reward = reward;
        q.proposalBond = proposalBond;
        q.liveness = liveness;
        q.creator = msg.sender;
        q.rewardToken = rewardToken;
        q.ancillaryData = data;

        ctf.prepareCondition(address(this), questionID, 2);
        if (reward > 0) SimERC20(rewardToken).transferFrom(msg.sender, address(this), reward);
        _requestPrice(q, timestamp);
        emit QuestionInitialized(questionID, timestamp, msg.sender, data, rewardToken, reward, proposalBond);
    }

    function _requestPrice(QuestionData storage q, uint256 timestamp) internal {
        bytes memory data = q.ancillaryData;
        optimisticOracle.requestPrice(YES_OR_NO_IDENTIFIER, timestamp, data, q.rewardToken, q.reward);
        optimisticOracle.setCallbacks(YES_OR_NO_IDENTIFIER, timestamp, data, false, true, false);
        if (q.proposalBond > 0) optimisticOracle.setBond(YES_OR_NO_IDENTIFIER, timestamp, data, q.proposalBond);
        if (q.liveness > 0) optimisticOracle.setCustomLiveness(YES_OR_NO_IDENTIFIER, timestamp, data, q.liveness);
    }

    function priceDisputed(bytes32, uint256, bytes calldata ancillaryData, uint256) external {
        require(msg.sender == address(optimisticOracle), "only optimistic oracle");
        bytes32 questionID = keccak256(ancillaryData);
        QuestionData storage q = questions[questionID];
        if (q.resolved) return;
        if (q.reset) {
            // A second dispute goes to the DVM.
            q.refund = true;
            return;
        }
        q.requestTimestamp = block.timestamp;
        q.reset = true;
        _requestPrice(q, block.timestamp);
        emit QuestionReset(questionID);
    }

    function ready(bytes32 questionID) public view returns (bool) {
        QuestionData storage q = questions[questionID];
        if (q.requestTimestamp == 0 || q.resolved) return false;
        return optimisticOracle.hasPrice(address(this), YES_OR_NO_IDENTIFIER, q.requestTimestamp, q.ancillaryData);
    }

    function resolve(bytes32 questionID) external {
        require(ready(questionID), "not ready");
        QuestionData storage q = questions[questionID];
        int256 price = optimisticOracle.settleAndGetPrice(YES_OR_NO_IDENTIFIER, q.requestTimestamp, q.ancillaryData);
        uint256[] memory payouts = new uint256[](2);
        if (price == 0) {
            payouts[1] = 1;
        } else if (price == 0.5 ether) {
            payouts[0] = 1;
            payouts[1] = 1;
        } else if (price == 1 ether) {
            payouts[0] = 1;
        } else {
            revert("invalid resolution data");
        }
        q.resolved = true;
        ctf.reportPayouts(questionID, payouts);
        emit QuestionResolved(questionID, price, payouts);
    }
}
